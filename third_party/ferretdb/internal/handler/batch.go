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

// gridfsd patch (PATCHES.md, "batches of 16 MiB"): find and getMore batches bounded in bytes, as in MongoDB.

package handler

import (
	"errors"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/clientconn/cursor"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/iterator"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// maxBatchBytes ends a batch once its documents reach it, as MongoDB ends a batch at 16 MiB. Upstream
// counted documents only: a getMore without batchSize returned 250 documents, 62 MB of GridFS chunks,
// past the 48 MB a wire message may hold, so the Go driver's GridFS downloads of files over about 60 MB
// failed ("length of read message too large"). A batch holds at most one document past the bound: at most
// 32 MiB.
const maxBatchBytes = 16 << 20

// consumeBatch reads up to n documents from c, fewer when they reach maxBatchBytes. done reports that c
// is exhausted (and then closed): a short batch no longer means the end.
func consumeBatch(c *cursor.Cursor, n int) (docs []*types.Document, done bool, err error) {
	var size int

	for len(docs) < n && size < maxBatchBytes {
		_, doc, err := c.Next()
		if err != nil {
			c.Close()

			if errors.Is(err, iterator.ErrIteratorDone) {
				return docs, true, nil
			}

			return nil, false, lazyerrors.Error(err)
		}

		docs = append(docs, doc)
		size += approxSize(doc)
	}

	return docs, false, nil
}

// approxSize estimates the BSON size of v: exact enough for strings and binary data, which make up large
// documents.
func approxSize(v any) int {
	switch v := v.(type) {
	case *types.Document:
		size := 5
		keys, values := v.Keys(), v.Values()

		for i, key := range keys {
			size += 2 + len(key) + approxSize(values[i])
		}

		return size
	case *types.Array:
		size := 5

		for i := range v.Len() {
			size += 8 + approxSize(must.NotFail(v.Get(i)))
		}

		return size
	case string:
		return 5 + len(v)
	case types.Binary:
		return 5 + len(v.B)
	case types.Regex:
		return 2 + len(v.Pattern) + len(v.Options)
	default:
		return 12
	}
}
