package gateway

import (
	"encoding/json"
	"fmt"

	"github.com/labstack/echo/v4"
)

// jsonSerializer writes JSON replies without HTML escaping: echo's default
// turns & < > into \u0026 \u003c \u003e, which breaks a signed URL pasted
// from a POST /sign reply and garbles messages such as "<token>". Replies are
// served as application/json, never embedded in HTML, so escaping buys nothing.
type jsonSerializer struct{}

var _ echo.JSONSerializer = jsonSerializer{}

func (jsonSerializer) Serialize(c echo.Context, v any, indent string) error {
	enc := json.NewEncoder(c.Response())
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(v)
}

func (jsonSerializer) Deserialize(c echo.Context, v any) error {
	err := json.NewDecoder(c.Request().Body).Decode(v)
	if err != nil {
		return echo.NewHTTPError(400, fmt.Sprintf("invalid JSON body: %v", err)).SetInternal(err)
	}
	return nil
}
