#!/bin/sh
# apt-install.sh [--for WHAT] [--or-warn] PACKAGE...: apt-get install, without recommends, of the
# Debian packages named, with sudo when not root; nothing when none is named. --for WHAT says
# "WHAT: installing ..." first. Without apt-get it names the packages to install and fails, or,
# with --or-warn, says so and exits 0 (the callers' tests then skip, or fail naming the package).
#
# Services the packages ship (redis-server, postgresql, rabbitmq-server with epmd on every
# interface, mosquitto, prometheus-pushgateway, prometheus, containerd) are not started: the tests
# start their own, on loopback, and stop them. So a policy-rc.d answering 101 ("action
# forbidden") is put in place for the install when there is none, and removed after it.
set -eu
what=
warn=
while [ $# -gt 0 ]; do
	case $1 in
	--for) what=$2; shift 2 ;;
	--or-warn) warn=1; shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || exit 0
if ! command -v apt-get >/dev/null 2>&1; then
	echo "${what:-apt-install}: no apt-get here: install $* (Debian package names) by other means" >&2
	[ -n "$warn" ] && exit 0
	exit 1
fi
[ -z "$what" ] || echo "$what: installing $* (apt-get)"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# written by daprperf scripts/apt-install.sh for one install\nexit 101\n' | $sudo tee "$policy" >/dev/null
	$sudo chmod 755 "$policy"
	trap '$sudo rm -f "$policy"' EXIT
fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "$@"
