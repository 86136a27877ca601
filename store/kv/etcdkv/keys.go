package etcdkv

import (
	"encoding/binary"
	"sort"
)

// The keys, under the store's prefix P:
//
//	P 0x00 "commit"               the commit clock: every commit changes it
//	enc(path) 0x01 name           an entry of the bucket at path:
//	                              "v" + value, or "b" for a sub-bucket
//	enc(path + [name]) = enc(path) 0x02 uvarint(len(name)) name
//	P 0x03 ...                    beside the store, not read by it: what
//	                              its programs share through the cluster
//	                              (BesidePrefix)
//
// A bucket's entries (its keys and its sub-buckets' names) are one range
// of etcd keys in the bucket's own byte order, apart from what its
// sub-buckets hold (0x02 sorts after 0x01), and everything under a
// bucket is one prefix, so that deleting it is one range delete.
const (
	tagClock   = 0x00
	tagEntry   = 0x01
	tagBucket  = 0x02
	tagBeside  = 0x03
	markValue  = 'v'
	markBucket = 'b'
)

// BesidePrefix starts the keys that the programs of a store under prefix
// keep beside it (the hosts' shared visitor marks, package etcdseen):
// under the store's prefix, so that its users reach them, and apart from
// every key of the store's own.
func BesidePrefix(prefix string) string { return prefix + string(rune(tagBeside)) }

// child is the encoded path of the sub-bucket name of the bucket at path.
func child(path string, name []byte) string {
	b := make([]byte, 0, len(path)+1+binary.MaxVarintLen64+len(name))
	b = append(b, path...)
	b = append(b, tagBucket)
	b = binary.AppendUvarint(b, uint64(len(name)))
	return string(append(b, name...))
}

// entries is the range [lo, hi) of the entries of the bucket at path.
func entries(path string) (lo, hi string) {
	return path + string(rune(tagEntry)), path + string(rune(tagEntry+1))
}

// prefixEnd is the end of the range of keys that start with p.
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return "\x00" // etcd's "to the end of the keyspace"
}

// span is a range [from, to) of etcd keys deleted by a transaction.
type span struct{ from, to string }

func (s span) has(k string) bool { return s.from <= k && k < s.to }

// merge sorts spans and joins those that touch.
func merge(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.from <= out[n-1].to {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}
