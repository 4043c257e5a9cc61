package kube

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// NamespacePrefix starts the name of every run's namespace: "daprperf-" and five random
// lowercase letters and digits. The name is also the run label (LabelRun) of every object.
const NamespacePrefix = "daprperf-"

// createNamespace creates the run's namespace ns.
func createNamespace(ctx context.Context, cs kubernetes.Interface, ns string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{LabelPartOf: "daprperf", LabelRun: ns}},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	return nil
}

// deleteNamespace deletes ns with everything in it and waits until it is gone, for at most
// timeout. The error says what is left when it is not gone in time: the namespace's phase and
// conditions (the namespace controller lists the content it could not delete).
func deleteNamespace(ctx context.Context, cs kubernetes.Interface, ns string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fg := metav1.DeletePropagationForeground
	err := cs.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{PropagationPolicy: &fg})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("delete namespace %s: %w", ns, err)
	}
	var last *corev1.Namespace
	err = wait.PollUntilContextCancel(ctx, 250*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err == nil {
			last = got
		}
		return false, nil // transient errors: keep polling until the deadline
	})
	if err == nil {
		return nil
	}
	msg := "no reading"
	if last != nil {
		msg = "phase " + string(last.Status.Phase)
		for _, c := range last.Status.Conditions {
			if c.Status == corev1.ConditionTrue {
				msg += fmt.Sprintf("; %s: %s", c.Type, c.Message)
			}
		}
	}
	return fmt.Errorf("namespace %s still there after %v (%s): %w", ns, timeout, msg, err)
}

// deleteTokenSecrets deletes the token Secret of every tester in apps from ns, each bounded by
// timeout; one already gone (or never made) is no error.
func deleteTokenSecrets(ctx context.Context, cs kubernetes.Interface, ns string, apps []AppDescription, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var errs []error
	for _, a := range apps {
		if a.TokenSecret == "" {
			continue
		}
		err := cs.CoreV1().Secrets(ns).Delete(ctx, a.TokenSecret, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete Secret %s/%s: %w", ns, a.TokenSecret, err))
		}
	}
	return errors.Join(errs...)
}
