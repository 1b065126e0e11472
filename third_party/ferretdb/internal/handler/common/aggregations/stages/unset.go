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

package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/common/aggregations"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/common/aggregations/stages/projection"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/handler/handlererrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/types"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/iterator"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/lazyerrors"
	"github.com/gridfsd/gridfsd/third_party/ferretdb/internal/util/must"
)

// unset represents $unset stage.
//
// { $unset: "<field>" }
//
//	or { $unset: [ "<field1>", "<field2>", ... ] }
type unset struct {
	exclusion *types.Document
}

// newUnset validates unset document and creates a new $unset stage.
func newUnset(stage *types.Document) (aggregations.Stage, error) {
	fields := must.NotFail(stage.Get("$unset"))

	// exclusion contains keys with `false` values to specify projection exclusion later.
	exclusion := must.NotFail(types.NewDocument())

	switch fields := fields.(type) {
	case *types.Array:
		if fields.Len() == 0 {
			return nil, handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrStageUnsetNoPath,
				"$unset specification must be a string or an array with at least one field",
				"$unset (stage)",
			)
		}

		iter := fields.Iterator()
		defer iter.Close()

		var visitedPaths []types.Path

		for {
			_, v, err := iter.Next()
			if err != nil {
				if errors.Is(err, iterator.ErrIteratorDone) {
					break
				}

				return nil, lazyerrors.Error(err)
			}

			field, ok := v.(string)
			if !ok {
				return nil, handlererrors.NewCommandErrorMsgWithArgument(
					handlererrors.ErrStageUnsetArrElementInvalidType,
					"$unset specification must be a string or an array containing only string values",
					"$unset (stage)",
				)
			}

			path, err := validateUnsetField(field)
			if err != nil {
				return nil, err
			}

			err = types.IsConflictPath(visitedPaths, *path)
			var pathErr *types.PathError

			if errors.As(err, &pathErr) {
				if pathErr.Code() == types.ErrPathConflictOverwrite {
					// the path overwrites one of visitedPaths.
					return nil, handlererrors.NewCommandErrorMsgWithArgument(
						handlererrors.ErrUnsetPathOverwrite,
						fmt.Sprintf("Invalid $unset :: caused by :: Path collision at %s", field),
						"$unset (stage)",
					)
				}

				if pathErr.Code() == types.ErrPathConflictCollision {
					// the path creates collision at one of visitedPaths.
					return nil, handlererrors.NewCommandErrorMsgWithArgument(
						handlererrors.ErrUnsetPathCollision,
						fmt.Sprintf(
							"Invalid $unset :: caused by :: Path collision at %s remaining portion %s",
							path.String(),
							pathErr.Error(),
						),
						"$unset (stage)",
					)
				}
			}

			if err != nil {
				return nil, lazyerrors.Error(err)
			}

			visitedPaths = append(visitedPaths, *path)

			exclusion.Set(field, false)
		}
	case string:
		if _, err := validateUnsetField(fields); err != nil {
			return nil, err
		}

		exclusion.Set(fields, false)
	default:
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrStageUnsetInvalidType,
			"$unset specification must be a string or an array",
			"$unset (stage)",
		)
	}

	return &unset{
		exclusion: exclusion,
	}, nil
}

// Process implements Stage interface.
func (u *unset) Process(_ context.Context, iter types.DocumentsIterator, closer *iterator.MultiCloser) (types.DocumentsIterator, error) { //nolint:lll // for readability
	// Use $project to unset fields, $unset is alias for $project exclusion.
	return projection.ProjectionIterator(iter, closer, u.exclusion)
}

// validateUnsetField returns error on invalid field value.
func validateUnsetField(field string) (*types.Path, error) {
	if field == "" {
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrEmptyFieldPath,
			"Invalid $unset :: caused by :: FieldPath cannot be constructed with empty string",
			"$unset (stage)",
		)
	}

	if strings.HasPrefix(field, "$") {
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrFieldPathInvalidName,
			"Invalid $unset :: caused by :: FieldPath field names may not start with '$'. "+
				"Consider using $getField or $setField.",
			"$unset (stage)",
		)
	}

	if strings.HasSuffix(field, ".") {
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrInvalidFieldPath,
			"Invalid $unset :: caused by :: FieldPath must not end with a '.'.",
			"$unset (stage)",
		)
	}

	path, err := types.NewPathFromString(field)
	if err != nil {
		return nil, handlererrors.NewCommandErrorMsgWithArgument(
			handlererrors.ErrPathContainsEmptyElement,
			"Invalid $unset :: caused by :: FieldPath field names may not be empty strings.",
			"$unset (stage)",
		)
	}

	return &path, nil
}

// check interfaces
var (
	_ aggregations.Stage = (*unset)(nil)
)
