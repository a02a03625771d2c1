package hcllimit

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Convert converts a value (a variable's) to the type constraint ty: a
// string that the type makes a number is read as quota.Parse reads it
// (typedNumberStrings), a list, set or map of any type is converted in
// linear time (fastCollection), and the result is held to the limits.
// Text gives the error's summary and detail.
func Convert(val cty.Value, ty cty.Type) (cty.Value, error) {
	if err := typedNumberStrings(val, ty, 0); err != nil {
		return cty.NilVal, err
	}
	conv, err := fastCollection(val, ty)
	if err != nil {
		return conv, err
	}
	if _, lerr := measure(conv); lerr != nil {
		return cty.NilVal, lerr
	}
	return conv, nil
}

// convertTo converts val to the type constraint ty.
func convertTo(val cty.Value, ty cty.Type) (cty.Value, error) {
	if ty == cty.DynamicPseudoType {
		return val, nil
	}
	return convert.Convert(val, ty)
}

// anyElements reports whether ty is a list, set or map of any type:
// list(any), set(any), map(any).
func anyElements(ty cty.Type) bool {
	return (ty.IsListType() || ty.IsSetType() || ty.IsMapType()) && ty.ElementType() == cty.DynamicPseudoType
}

// fastCollection is convertTo(v, ty), in linear time when ty is a list,
// set or map of any type and v a tuple or an object (what a for
// expression or a literal builds). cty finds the element type by
// comparing the type of every element with that of every other one: 30,000
// elements took it 10 seconds. Here the distinct element types are
// unified, usually one, and each element converted to the result.
func fastCollection(v cty.Value, ty cty.Type) (cty.Value, error) {
	if !fastPath(v, ty) {
		return convertTo(v, ty)
	}
	var distinct []cty.Type
	for it := v.ElementIterator(); it.Next(); {
		_, el := it.Element()
		if !containsType(distinct, el.Type()) {
			if len(distinct) == maxTypes {
				return cty.NilVal, tooBig("The %d elements have more than %d different types, too many to make a %s of them; krmplan allows %d.",
					v.LengthInt(), maxTypes, ty.FriendlyNameForConstraint(), maxTypes)
			}
			distinct = append(distinct, el.Type())
		}
	}
	elTy, _ := convert.UnifyUnsafe(distinct)
	if elTy == cty.NilType {
		return convertTo(v, ty) // cty's error, from a few distinct types
	}
	if v.Type().IsObjectType() {
		m := make(map[string]cty.Value, v.LengthInt())
		for it := v.ElementIterator(); it.Next(); {
			k, el := it.Element()
			c, err := convertTo(el, elTy)
			if err != nil {
				return cty.NilVal, err
			}
			m[k.AsString()] = c
		}
		return cty.MapVal(m), nil
	}
	els := make([]cty.Value, 0, v.LengthInt())
	for it := v.ElementIterator(); it.Next(); {
		_, el := it.Element()
		c, err := convertTo(el, elTy)
		if err != nil {
			return cty.NilVal, err
		}
		els = append(els, c)
	}
	if ty.IsSetType() {
		return cty.SetVal(els), nil
	}
	return cty.ListVal(els), nil
}

// maxTypes is how many different types the elements of a large tuple or
// object converted to a list, set or map of any type may have.
const maxTypes = 64

// fastPath reports whether fastCollection converts v itself: ty is a
// list, set or map of any type, and v a known tuple (for a map, an
// object) of at least 64 elements, below which cty's own way is fast.
func fastPath(v cty.Value, ty cty.Type) bool {
	if !anyElements(ty) || !v.IsWhollyKnown() || v.IsNull() {
		return false
	}
	vt := v.Type()
	return (vt.IsTupleType() && !ty.IsMapType() || vt.IsObjectType() && ty.IsMapType()) && v.LengthInt() >= 64
}

func containsType(tys []cty.Type, t cty.Type) bool {
	for _, u := range tys {
		if u.Equals(t) {
			return true
		}
	}
	return false
}

// typedNumberStrings walks v along the type ty it is converted to and
// refuses each string that becomes a number but is not one quota.Parse
// reads (numberStrings).
func typedNumberStrings(v cty.Value, ty cty.Type, depth int) error {
	if !v.IsKnown() || v.IsNull() || ty == cty.DynamicPseudoType || depth > MaxDepth {
		return nil
	}
	v, _ = v.Unmark()
	switch {
	case ty == cty.Number:
		if s, ok := knownString(v); ok {
			return numberString1(s, false)
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsMapType():
		if v.CanIterateElements() {
			for it := v.ElementIterator(); it.Next(); {
				_, el := it.Element()
				if err := typedNumberStrings(el, ty.ElementType(), depth+1); err != nil {
					return err
				}
			}
		}
	case ty.IsTupleType():
		if v.Type().IsTupleType() || v.Type().IsListType() {
			i := 0
			for it := v.ElementIterator(); it.Next() && i < len(ty.TupleElementTypes()); i++ {
				_, el := it.Element()
				if err := typedNumberStrings(el, ty.TupleElementType(i), depth+1); err != nil {
					return err
				}
			}
		}
	case ty.IsObjectType():
		if v.Type().IsObjectType() || v.Type().IsMapType() {
			for it := v.ElementIterator(); it.Next(); {
				k, el := it.Element()
				if name := k.AsString(); ty.HasAttribute(name) {
					if err := typedNumberStrings(el, ty.AttributeType(name), depth+1); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
