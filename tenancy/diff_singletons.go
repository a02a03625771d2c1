package tenancy

import (
	"slices"
	"strconv"
	"strings"
)

// singletons adds what Diff cannot plan in KRM's two singletons: every
// setting of the ManagedNodesConfig and the KRMConfig that head gives
// another effective value than base. A plan's changes and patches address
// node pools, departments and projects only, so such an edit would be
// left out of the plan and of its patches: it is refused, naming the
// object, the field and both values. Values are compared as KRM reads
// them: an absent KRMConfig or an empty field is KRM's default, a flag in
// spec.projectController.extraArgs is the value it sets (ApplyExtraArgs
// ran when the YAML was read), and the ManagedNodesConfig's terms as
// written, in order.
func (d *tenancyDiff) singletons(base, head *Tenancy) {
	b, h := nodeSelectorText(base.ManagedNodes), nodeSelectorText(head.ManagedNodes)
	if b != h {
		d.errorf(KindManagedNodesConfig.Object(KindManagedNodesConfig.Info().Singleton),
			"spec.inclusion_criteria.nodeSelectorTerms changes from %s to %s; %s", b, h, singletonAdvice)
	}
	bk, hk := base.KRMConfig, head.KRMConfig
	o := KindKRMConfig.Object(KindKRMConfig.Info().Singleton)
	for _, s := range []struct {
		field      string
		get        func(*KRMConfig) string
		defaultVal string
	}{
		{"spec.global.namespaceProjectLabelKey", (*KRMConfig).LabelKey, DefaultProjectLabelKey},
		{"spec.projectController.args.projectNamePrefix", (*KRMConfig).NamePrefix, DefaultProjectNamePrefix},
		{"spec.projectController.args.resourceManualOverrideLabelKey", (*KRMConfig).OverrideKey, DefaultManualOverrideLabelKey},
		{"spec.projectController.features.createNamespaces", func(c *KRMConfig) string { return strconv.FormatBool(c.CreatesNamespaces()) }, "true"},
	} {
		if bv, hv := s.get(bk), s.get(hk); bv != hv {
			d.errorf(o, "%s changes from %s to %s; %s", s.field, settingText(bv, s.defaultVal), settingText(hv, s.defaultVal), singletonAdvice)
		}
	}
}

// singletonAdvice ends the refusal of a singleton's change.
const singletonAdvice = "krmplan plans node pools, departments and projects, not KRM's singletons: change it in a pull request of its own and review that by hand"

// settingText is a KRMConfig setting's value for a message, marked when it
// is KRM's default.
func settingText(v, defaultVal string) string {
	if v == defaultVal {
		return strconv.Quote(v) + " (KRM's default)"
	}
	return strconv.Quote(v)
}

// nodeSelectorText is a ManagedNodesConfig's node selector for a message:
// its terms joined by " or ", each term's expressions by " and "
// (`example.com/gpu-class In [h100 a100]`); "absent" without one.
func nodeSelectorText(c *ManagedNodesConfig) string {
	if c == nil {
		return "absent"
	}
	terms := make([]string, 0, len(c.Terms))
	for _, t := range c.Terms {
		exprs := make([]string, 0, len(t.MatchExpressions))
		for _, e := range t.MatchExpressions {
			s := e.Key + " " + e.Operator
			if len(e.Values) > 0 || !slices.Contains([]string{"Exists", "DoesNotExist"}, e.Operator) {
				s += " [" + strings.Join(e.Values, " ") + "]"
			}
			exprs = append(exprs, s)
		}
		terms = append(terms, "("+strings.Join(exprs, " and ")+")")
	}
	if len(terms) == 0 {
		return "no terms"
	}
	return strings.Join(terms, " or ")
}
