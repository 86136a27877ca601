#!/usr/bin/env bash
# deploy/cluster-certs.sh DIR NAME=ADDRESS... - make the certificates of a
# small etcd cluster and of the counter that uses it, with openssl.
#
#   deploy/cluster-certs.sh /root/etcd-certs pi1=192.168.1.11 pi2=192.168.1.12 vps=203.0.113.7
#
# Writes into DIR (made mode 0700; files that are there already are kept,
# so a member added later gets its own certificate from the same CA):
#
#   ca.pem, ca-key.pem        the cluster's own certificate authority (ten
#                             years); keep ca-key.pem off the members
#   NAME.pem, NAME-key.pem    each member's certificate, for ADDRESS (an IP
#                             address or a host name), 127.0.0.1 and NAME:
#                             it serves the clients and the other members,
#                             and is shown to them
#   counter.pem, counter-key.pem
#                             the counter's client certificate: members
#                             started with --client-cert-auth let in only
#                             a client with a certificate of this CA (and
#                             with etcd's users on, its common name,
#                             "counter", is the user it acts as)
#
# Keys are ECDSA P-256, made mode 0600. Nothing is sent anywhere: copy each
# member's three files (ca.pem, NAME.pem, NAME-key.pem) to it, and ca.pem
# with the counter's pair to each web server (deploy/doc/cluster.md).
set -euo pipefail
usage() {
	echo "usage: $0 DIR NAME=ADDRESS [NAME=ADDRESS...]" >&2
	exit 2
}
[ $# -ge 2 ] || usage
dir=$1
shift
command -v openssl >/dev/null || {
	echo "cluster-certs.sh: no openssl (apt-get install openssl)" >&2
	exit 1
}
umask 077
mkdir -p -- "$dir"
chmod 0700 -- "$dir"
cd -- "$dir"

days=3650
if [ ! -f ca.pem ]; then
	openssl req -x509 -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
		-keyout ca-key.pem -out ca.pem -days "$days" -subj "/CN=counter etcd CA" \
		-addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
	echo "made ca.pem (the cluster's certificate authority) and ca-key.pem"
fi

# cert NAME SAN USAGE makes NAME.pem and NAME-key.pem, signed by the CA.
cert() {
	local name=$1 san=$2 usage=$3 ext
	if [ -f "$name.pem" ]; then
		echo "kept $name.pem"
		return
	fi
	ext=$(mktemp)
	printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=%s\n' "$usage" >"$ext"
	[ -z "$san" ] || printf 'subjectAltName=%s\n' "$san" >>"$ext"
	openssl req -new -nodes -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
		-keyout "$name-key.pem" -out "$name.csr" -subj "/CN=$name" 2>/dev/null
	openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial \
		-out "$name.pem" -days "$days" -extfile "$ext" 2>/dev/null
	rm -f -- "$name.csr" "$ext"
	echo "made $name.pem and $name-key.pem${san:+ for $san}"
}

for member in "$@"; do
	name=${member%%=*}
	addr=${member#*=}
	if [ "$name" = "$member" ] || [ -z "$name" ] || [ -z "$addr" ] || [[ ! $name =~ ^[A-Za-z0-9][A-Za-z0-9.-]*$ ]] || [ "$name" = counter ] || [ "$name" = ca ]; then
		echo "cluster-certs.sh: $member: want NAME=ADDRESS, NAME letters, digits, '.' or '-' (and not ca or counter)" >&2
		exit 2
	fi
	san="DNS:$name,IP:127.0.0.1"
	if [ "$addr" = 127.0.0.1 ]; then
		: # there already: a member on this machine alone
	elif [[ $addr =~ ^[0-9.]+$ || $addr == *:* ]]; then
		san+=",IP:$addr"
	else
		san+=",DNS:$addr"
	fi
	cert "$name" "$san" serverAuth,clientAuth
done
cert counter "" clientAuth
rm -f ca.srl
