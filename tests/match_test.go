package tests

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gridfsd/gridfsd/third_party/mongo-driver/bson"
)

// The matching rules of the unified test format ("Evaluating Matches"):
// expected values are Extended JSON that may hold $$ operators; numbers of
// any type match by value; documents match regardless of key order; extra
// fields are allowed only in root-level documents (the result itself, or
// each document of a find result). An actual value with Type 0 is absent.

// matcher evaluates expected values against actual ones; entities resolves
// $$matchesEntity.
type matcher struct {
	entities map[string]any
}

// match reports why act does not match exp, or nil. root says whether exp
// is a root-level document, or an array of them.
func (m *matcher) match(path string, exp, act bson.RawValue, root bool) error {
	if op, arg, ok := operator(exp); ok {
		return m.matchOperator(path, op, arg, act, root)
	}
	if act.Type == 0 {
		return fmt.Errorf("%s: missing, want %s", path, exp)
	}
	switch exp.Type {
	case bson.TypeEmbeddedDocument:
		ad, ok := act.DocumentOK()
		if !ok {
			return fmt.Errorf("%s: got %s %s, want a document", path, act.Type, act)
		}
		return m.matchDoc(path, exp.Document(), ad, root)
	case bson.TypeArray:
		aa, ok := act.ArrayOK()
		if !ok {
			return fmt.Errorf("%s: got %s %s, want an array", path, act.Type, act)
		}
		ev, err := exp.Array().Values()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		av, err := aa.Values()
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(ev) != len(av) {
			return fmt.Errorf("%s: %d elements, want %d: %s", path, len(av), len(ev), act)
		}
		for i := range ev {
			if err := m.match(fmt.Sprintf("%s[%d]", path, i), ev[i], av[i], root); err != nil {
				return err
			}
		}
		return nil
	case bson.TypeInt32, bson.TypeInt64, bson.TypeDouble:
		if !numbersEqual(exp, act) {
			return fmt.Errorf("%s: got %s %s, want %s", path, act.Type, act, exp)
		}
		return nil
	}
	if exp.Type != act.Type || !bytes.Equal(exp.Value, act.Value) {
		return fmt.Errorf("%s: got %s %s, want %s %s", path, act.Type, act, exp.Type, exp)
	}
	return nil
}

func (m *matcher) matchDoc(path string, exp, act bson.Raw, root bool) error {
	elems, err := exp.Elements()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	want := make(map[string]bool, len(elems))
	for _, e := range elems {
		want[e.Key()] = true
		av, _ := act.LookupErr(e.Key()) // absent: the zero RawValue
		if err := m.match(path+"."+e.Key(), e.Value(), av, false); err != nil {
			return err
		}
	}
	if root {
		return nil
	}
	actElems, err := act.Elements()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, e := range actElems {
		if !want[e.Key()] {
			return fmt.Errorf("%s: unexpected field %q in nested document %s", path, e.Key(), act)
		}
	}
	return nil
}

func (m *matcher) matchOperator(path, op string, arg, act bson.RawValue, root bool) error {
	switch op {
	case "$$exists":
		want, ok := arg.BooleanOK()
		if !ok {
			return fmt.Errorf("%s: $$exists takes a boolean, got %s", path, arg)
		}
		if got := act.Type != 0; got != want {
			return fmt.Errorf("%s: exists is %v, want %v (value %s)", path, got, want, act)
		}
		return nil
	case "$$unsetOrMatches":
		if act.Type == 0 {
			return nil
		}
		return m.match(path, arg, act, root)
	case "$$type":
		if act.Type == 0 {
			return fmt.Errorf("%s: missing, want type %s", path, arg)
		}
		names, err := typeNames(arg)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, n := range names {
			ok, err := hasType(act.Type, n)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if ok {
				return nil
			}
		}
		return fmt.Errorf("%s: type %s, want one of %v", path, act.Type, names)
	case "$$matchesEntity":
		name, ok := arg.StringValueOK()
		if !ok {
			return fmt.Errorf("%s: $$matchesEntity takes an entity name, got %s", path, arg)
		}
		ent, ok := m.entities[name].(bson.RawValue)
		if !ok {
			return fmt.Errorf("%s: no BSON entity %q (have %T)", path, name, m.entities[name])
		}
		return m.match(path, ent, act, false)
	case "$$matchesHexBytes":
		s, ok := arg.StringValueOK()
		if !ok {
			return fmt.Errorf("%s: $$matchesHexBytes takes a string, got %s", path, arg)
		}
		want, err := hex.DecodeString(s)
		if err != nil {
			return fmt.Errorf("%s: malformed $$matchesHexBytes %q: %w", path, s, err)
		}
		got, ok := bytesOf(act)
		if !ok {
			return fmt.Errorf("%s: got %s %s, want bytes %s", path, act.Type, act, s)
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s: got bytes %x, want %s", path, got, strings.ToLower(s))
		}
		return nil
	}
	return fmt.Errorf("%s: unsupported operator %s", path, op)
}

// operator reports whether v is {$$op: arg}: a document whose first and
// only key starts with "$$".
func operator(v bson.RawValue) (op string, arg bson.RawValue, ok bool) {
	doc, isDoc := v.DocumentOK()
	if !isDoc {
		return "", bson.RawValue{}, false
	}
	elems, err := doc.Elements()
	if err != nil || len(elems) != 1 || !strings.HasPrefix(elems[0].Key(), "$$") {
		return "", bson.RawValue{}, false
	}
	return elems[0].Key(), elems[0].Value(), true
}

// bytesOf is the content of a download result: binary data, or a string
// for runners whose downloads return strings.
func bytesOf(v bson.RawValue) ([]byte, bool) {
	if _, data, ok := v.BinaryOK(); ok {
		return data, true
	}
	if s, ok := v.StringValueOK(); ok {
		return []byte(s), true
	}
	return nil, false
}

func numbersEqual(a, b bson.RawValue) bool {
	ai, aInt := intValue(a)
	bi, bInt := intValue(b)
	if aInt && bInt {
		return ai == bi
	}
	af, aok := a.AsFloat64OK()
	bf, bok := b.AsFloat64OK()
	return aok && bok && af == bf
}

func intValue(v bson.RawValue) (int64, bool) {
	switch v.Type {
	case bson.TypeInt32:
		return int64(v.Int32()), true
	case bson.TypeInt64:
		return v.Int64(), true
	}
	return 0, false
}

func typeNames(arg bson.RawValue) ([]string, error) {
	if s, ok := arg.StringValueOK(); ok {
		return []string{s}, nil
	}
	arr, ok := arg.ArrayOK()
	if !ok {
		return nil, fmt.Errorf("$$type takes a string or an array of strings, got %s", arg)
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(vals))
	for _, v := range vals {
		s, ok := v.StringValueOK()
		if !ok {
			return nil, fmt.Errorf("$$type: %s is not a type name", v)
		}
		names = append(names, s)
	}
	return names, nil
}

// bsonTypes are the type names of the $type query operator.
var bsonTypes = map[string]bson.Type{
	"double":              bson.TypeDouble,
	"string":              bson.TypeString,
	"object":              bson.TypeEmbeddedDocument,
	"array":               bson.TypeArray,
	"binData":             bson.TypeBinary,
	"undefined":           bson.TypeUndefined,
	"objectId":            bson.TypeObjectID,
	"bool":                bson.TypeBoolean,
	"date":                bson.TypeDateTime,
	"null":                bson.TypeNull,
	"regex":               bson.TypeRegex,
	"dbPointer":           bson.TypeDBPointer,
	"javascript":          bson.TypeJavaScript,
	"symbol":              bson.TypeSymbol,
	"javascriptWithScope": bson.TypeCodeWithScope,
	"int":                 bson.TypeInt32,
	"timestamp":           bson.TypeTimestamp,
	"long":                bson.TypeInt64,
	"decimal":             bson.TypeDecimal128,
	"minKey":              bson.TypeMinKey,
	"maxKey":              bson.TypeMaxKey,
}

func hasType(t bson.Type, name string) (bool, error) {
	if name == "number" {
		return t == bson.TypeInt32 || t == bson.TypeInt64 || t == bson.TypeDouble || t == bson.TypeDecimal128, nil
	}
	want, ok := bsonTypes[name]
	if !ok {
		return false, fmt.Errorf("unknown $$type %q", name)
	}
	return t == want, nil
}

// sameValue is the exact comparison of test outcomes: same types and values,
// same keys in any order, no extra fields anywhere and no operators.
func sameValue(path string, exp, act bson.RawValue) error {
	if exp.Type != act.Type {
		return fmt.Errorf("%s: got %s %s, want %s %s", path, act.Type, act, exp.Type, exp)
	}
	switch exp.Type {
	case bson.TypeEmbeddedDocument:
		return sameDoc(path, exp.Document(), act.Document())
	case bson.TypeArray:
		ev, err := exp.Array().Values()
		if err != nil {
			return err
		}
		av, err := act.Array().Values()
		if err != nil {
			return err
		}
		if len(ev) != len(av) {
			return fmt.Errorf("%s: %d elements, want %d", path, len(av), len(ev))
		}
		for i := range ev {
			if err := sameValue(fmt.Sprintf("%s[%d]", path, i), ev[i], av[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if !bytes.Equal(exp.Value, act.Value) {
		return fmt.Errorf("%s: got %s, want %s", path, act, exp)
	}
	return nil
}

func sameDoc(path string, exp, act bson.Raw) error {
	ee, err := exp.Elements()
	if err != nil {
		return err
	}
	ae, err := act.Elements()
	if err != nil {
		return err
	}
	if len(ee) != len(ae) {
		return fmt.Errorf("%s: %d fields, want %d: got %s, want %s", path, len(ae), len(ee), act, exp)
	}
	for _, e := range ee {
		av, err := act.LookupErr(e.Key())
		if err != nil {
			return fmt.Errorf("%s: missing field %q: got %s", path, e.Key(), act)
		}
		if err := sameValue(path+"."+e.Key(), e.Value(), av); err != nil {
			return err
		}
	}
	return nil
}
