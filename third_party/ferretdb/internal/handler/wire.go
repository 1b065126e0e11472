// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package handler

import (
	"github.com/gridfsd/gridfsd/third_party/wire"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/bson"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// init sets wire package to return error if float64 NaN value is present in wire messages.
func init() {
	wire.CheckNaNs = true
}

// opMsgDocument gets a raw document from section 0 and converts to [*types.Document].
// Then it iterates raw documents from sections 1 if any, appends them
// to the response using the section identifier as the key.
//
// gridfsd (PATCHES.md item 40): binary data is shared with the message's buffer, not copied. A
// message received is read into a buffer of its own (wire.ReadMessage) that nothing writes to
// afterwards, and nothing in FerretDB writes into a Binary's bytes; an insert of GridFS chunks
// otherwise copied every chunk once more, the half of what the store allocated per byte inserted.
func opMsgDocument(msg *wire.OpMsg) (*types.Document, error) {
	res, err := bson.ToDocumentShared(msg.RawSection0())
	if err != nil {
		return nil, lazyerrors.Error(err)
	}

	for _, section := range msg.Sections() {
		if section.Kind == 0 {
			continue
		}

		docs := section.Documents()
		a := types.MakeArray(len(docs))

		for _, d := range docs {
			var doc *types.Document

			if doc, err = bson.ToDocumentShared(d); err != nil {
				return nil, lazyerrors.Error(err)
			}

			a.Append(doc)
		}

		res.Set(section.Identifier, a)
	}

	return res, nil
}

// documentOpMsg converts the document to [*wirebson.Document].
func documentOpMsg(doc *types.Document) (*wire.OpMsg, error) {
	// gridfsd (PATCHES.md item 28): not encoded here; wire.WriteMessage writes it to the connection
	// as it encodes it, binary data without a copy.
	return wire.NewOpMsgDocument(must.NotFail(bson.FromDocument(doc))), nil
}
