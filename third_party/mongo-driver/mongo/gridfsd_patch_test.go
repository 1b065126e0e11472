package mongo

import (
	"errors"
	"testing"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/x/bsonx/bsoncore"
)

// PATCHES.md item 1: a document that is BSON already is inserted as it is,
// not copied, and one that is not valid BSON is refused.
func TestMarshalKeepsBSON(t *testing.T) {
	doc := bsoncore.NewDocumentBuilder().AppendInt32("n", 7).AppendBinary("data", 0, make([]byte, 1000)).Build()
	got, err := marshal(doc, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if &got[0] != &doc[0] || len(got) != len(doc) {
		t.Error("the document was copied")
	}
	var me MarshalError
	if _, err := marshal(doc[:len(doc)-3], nil, nil); !errors.As(err, &me) {
		t.Errorf("a truncated document: %v, want a MarshalError", err)
	}
}
