# Sourced by scripts/build-daprd.sh and scripts/build-kube-node.sh: what the module proxy here
# needs to build dapr's commands at a release, in one place. Needs go and jq.

# dapr_pins VERSION [CMD]: sets pins (path@version words for go get: versions of dapr's
# dependencies that the module proxy refuses, raised to ones it serves) and replaces (path@version
# words, each a replace directive: refused versions lowered) for building dapr VERSION's CMD
# (daprd, placement, scheduler, sentry, injector or operator).
dapr_pins() {
	replaces=""
	case "$1" in
	# v1.18.3 needs three modules the proxy refuses, each replaced (go get would meet a lower
	# version by downgrading dapr itself):
	# - durabletask-go v0.12.4 (and v0.12.2, v0.12.3): v0.12.1, v1.18.0's, stands in. It is an
	#   ancestor of v0.12.4 on durabletask-go's release-0.12 branch, four commits behind (fixes
	#   to terminating child workflows and to trace contexts on ContinueAsNew), with the same
	#   exported API as far as dapr v1.18.3 uses it;
	# - dapr replaces pulsar-client-go by a fork, github.com/twmb/pulsar-client-go, which the
	#   proxy serves no version of: the upstream module's v0.19.0 stands in, and builds;
	# - github.com/iskorotkov/avro/v2 v2.33.1, which the fork uses: v2.34.0 stands in.
	# Only the Pulsar pub/sub component, which no scenario here uses, is built from other code.
	v1.18.3) pins="" replaces="github.com/dapr/durabletask-go@v0.12.1 github.com/apache/pulsar-client-go@v0.19.0 github.com/iskorotkov/avro/v2@v2.34.0" ;;
	# v1.17.0's components-contrib v1.17.0 (and v1.17.1, v1.17.2) is refused too: v1.17.3,
	# v1.17.5's, stands in, so that build is v1.17.0's runtime with v1.17.5's components (result
	# files record the modules daprd was built with).
	v1.17.0) pins="github.com/dapr/durabletask-go@v0.11.3 github.com/dapr/components-contrib@v1.17.3" ;;
	v1.17.*) pins="github.com/dapr/durabletask-go@v0.11.3" ;;
	# v1.16.2's components-contrib v1.16.3 is refused: v1.16.5's stands in, as for v1.17.0.
	v1.16.2) pins="github.com/choleraehyq/pid@v0.0.24 github.com/dapr/components-contrib@v1.16.5" ;;
	v1.16.*) pins="github.com/choleraehyq/pid@v0.0.24" ;;
	*) pins="" ;;
	esac
	# The scheduler of v1.17 needs github.com/diagridio/go-etcd-cron v0.12.4, and of v1.18.0 and
	# v1.18.1 v0.12.5, which the proxy refuses (403): v0.12.6 builds, and leaves the set of
	# modules daprd resolves unchanged. So this scheduler is not byte-for-byte the released one:
	# result files record it.
	if [ "${2:-}" = scheduler ]; then
		case "$1" in
		v1.17.* | v1.18.0 | v1.18.1) pins="$pins github.com/diagridio/go-etcd-cron@v0.12.6" ;;
		esac
	fi
}

# dapr_copy_replaces DIR GOMOD: repeats in the module at DIR the replace directives of dapr's
# go.mod GOMOD (go install pkg@version refuses a module that has them), one -replace each.
dapr_copy_replaces() {
	go mod edit -json "$2" |
		jq -r '.Replace // [] | .[] |
			"-replace=" + .Old.Path + (if .Old.Version then "@" + .Old.Version else "" end) +
			"=" + .New.Path + (if .New.Version then "@" + .New.Version else "" end)' |
		while read -r flag; do
			(cd "$1" && go mod edit "$flag")
		done
}

# dapr_replace DIR PATH@VERSION...: in the module at DIR, replaces each PATH by PATH@VERSION,
# dropping dapr's own replace of that PATH (for one version of it or all) first.
dapr_replace() {
	dir=$1
	shift
	for r in "$@"; do
		path=${r%@*}
		go mod edit -json "$dir/go.mod" |
			jq -r --arg p "$path" '.Replace // [] | .[] | select(.Old.Path == $p) | "-dropreplace=" + .Old.Path + (if .Old.Version then "@" + .Old.Version else "" end)' |
			while read -r flag; do
				(cd "$dir" && go mod edit "$flag")
			done
		(cd "$dir" && go mod edit "-replace=$path=$path@${r#*@}")
	done
}
