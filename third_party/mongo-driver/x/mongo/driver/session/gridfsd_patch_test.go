package session

import (
	"bytes"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/bsonx/bsoncore"
)

// PATCHES.md item 4: the cluster time kept from a reply is a copy, so that
// the reply's buffer may be reused.
func TestClusterTimeIsCopied(t *testing.T) {
	reply := bsoncore.NewDocumentBuilder().AppendDocument("$clusterTime",
		bsoncore.NewDocumentBuilder().AppendTimestamp("clusterTime", 10, 1).Build()).Build()
	want := bytes.Clone(reply)
	var cc ClusterClock
	cc.AdvanceClusterTime(bson.Raw(reply))
	c := &Client{}
	if err := c.AdvanceClusterTime(bson.Raw(reply)); err != nil {
		t.Fatal(err)
	}
	clear(reply) // the buffer reused for the next reply
	if got := cc.GetClusterTime(); !bytes.Equal(got, want) {
		t.Errorf("the clock's cluster time changed with the reply's buffer: %v", got)
	}
	if !bytes.Equal(c.ClusterTime, want) {
		t.Errorf("the session's cluster time changed with the reply's buffer: %v", c.ClusterTime)
	}
}
