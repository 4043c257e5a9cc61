#!/bin/sh
# apt-get install, without recommends, of the Debian packages named as arguments, for make
# test-deps and .ci/run. Services the packages ship (redis-server, postgresql, rabbitmq-server
# with epmd on every interface, mosquitto, prometheus-pushgateway) are not started: the tests
# start their own, on loopback, and stop them. A policy-rc.d answering 101 ("action forbidden")
# is put in place for the install when there is none, and removed after it.
set -eu
[ $# -gt 0 ] || exit 0
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
