package perf

// SubscribeConfiguration is the subscribe mode of the configuration scenarios: the subscriber
// app (started with ConfigurationSubscriberArgs) subscribes through its daprd to every key of
// a configuration store, over the scenario's transport (HTTP: daprd POSTs each update to the
// app's /configuration/<store>/<key>; gRPC: Dapr.SubscribeConfiguration's stream), and counts
// each update the tester writes straight into the store (OpConfigurationSet, one new key per
// update, the value a stamped DeliveryMessage) as it counts pub/sub messages. A DeliveryPlan
// in this mode subscribes once the deployment is up, before its warmup.
const SubscribeConfiguration SubscribeMode = "configuration"

// ConfigurationSubscriberArgs is the command line of a subscriber app in the configuration
// mode for the configuration store named store.
func ConfigurationSubscriberArgs(store string) []string {
	return []string{"-configuration-store", store}
}
