package planner

import (
	"math/rand"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEChecksTableIsTheCatalogue: the README's Checks table lists
// every code of Codes at its level, and no other.
func TestREADMEChecksTableIsTheCatalogue(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Checks\n")
	if !ok {
		t.Fatal("README.md has no Checks section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile(`(?m)^\| (error|warning|note)\b[^|]*\| (.*) \|$`)
	code := regexp.MustCompile("`([a-z0-9-]+)`")
	listed := map[Code]Level{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		for _, c := range code.FindAllStringSubmatch(m[2], -1) {
			if prev, dup := listed[Code(c[1])]; dup {
				t.Errorf("README lists %s twice (%s and %s)", c[1], prev, m[1])
			}
			listed[Code(c[1])] = Level(m[1])
		}
	}
	if len(listed) == 0 {
		t.Fatal("no codes found in the README's Checks table")
	}
	for _, info := range Codes {
		if level, ok := listed[info.Code]; !ok {
			t.Errorf("README's Checks table lacks %s (%s)", info.Code, info.Level)
		} else if level != info.Level {
			t.Errorf("README lists %s as a %s, the catalogue as a %s", info.Code, level, info.Level)
		}
		delete(listed, info.Code)
	}
	for c, level := range listed {
		t.Errorf("README lists %s (%s), which is not in the catalogue", c, level)
	}
}

// TestCodesAreUniqueAndMeant: one row per code, each with a meaning.
func TestCodesAreUniqueAndMeant(t *testing.T) {
	seen := map[Code]bool{}
	for _, info := range Codes {
		if seen[info.Code] || info.Meaning == "" || info.Level.Rank() > 2 {
			t.Errorf("bad row %+v", info)
		}
		seen[info.Code] = true
		if got, ok := info.Code.Info(); !ok || got != info {
			t.Errorf("Info(%s) = %+v", info.Code, got)
		}
	}
	if _, ok := Code("nope").Info(); ok {
		t.Error("an unknown code has a row")
	}
}

// TestFindingsUseTheCatalogue: every finding of the checks, on random messy
// tenancies and plans, carries a code of the catalogue at its level
// (pool-over-capacity may be a warning).
func TestFindingsUseTheCatalogue(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 200; i++ {
		before := messyTenancy(t, r)
		fs := Check(before, nil)
		if p, diags := Build(before, messyOverlay(r, before)); !diags.HasErrors() {
			fs = append(fs, p.Findings...)
		}
		for _, f := range fs {
			info, ok := f.Code.Info()
			switch {
			case !ok:
				t.Fatalf("%s is not in the catalogue: %s", f.Code, f.Message)
			case f.Level != info.Level && !(f.Code == CodePoolOverCapacity && f.Level == LevelWarning):
				t.Fatalf("%s at level %s, the catalogue says %s", f.Code, f.Level, info.Level)
			}
		}
	}
}
