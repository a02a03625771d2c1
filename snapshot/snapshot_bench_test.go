package snapshot_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/krmplan/krmplan/internal/cputime"
	"github.com/krmplan/krmplan/internal/gentenancy"
	"github.com/krmplan/krmplan/snapshot"
	"go.yaml.in/yaml/v3"
)

// The benchmarks of this file measure the snapshot side of the main job on
// generated tenancies of gentenancy.Sizes projects (scripts/bench runs
// them all and prints one table): parsing a tenancy file, taking a
// snapshot from a git ref with the cluster data laid over it, and writing
// and reading state.json.

func tenancy(n int) *gentenancy.Tenancy {
	return gentenancy.Generate(gentenancy.Spec{Projects: n, Seed: gentenancy.BenchSeed})
}

func sizes(b *testing.B, run func(b *testing.B, n int)) {
	for _, n := range gentenancy.Sizes(testing.Short()) {
		b.Run(fmt.Sprintf("projects=%d", n), func(b *testing.B) { run(b, n) })
	}
}

// BenchmarkParseTenancy parses one tenancy file of n projects.
func BenchmarkParseTenancy(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		src := tenancy(n).YAML()
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			var t snapshot.Parsed
			if err := t.ParseTenancy(gentenancy.TenancyFile, src); err != nil {
				b.Fatal(err)
			}
		}
		cputime.Report(b, cpu0)
	})
}

// BenchmarkSnapshotFromGit is `krmplan snapshot --git-repo --cluster-data`
// without the file writes: read the tenancy at HEAD with git, lay the
// cluster data over it and seal it (normalize, digest).
func BenchmarkSnapshotFromGit(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		t := tenancy(n)
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, gentenancy.TenancyFile), t.YAML(), 0o644); err != nil {
			b.Fatal(err)
		}
		for _, args := range [][]string{
			{"init", "--quiet"},
			{"add", gentenancy.TenancyFile},
			{"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "--quiet", "-m", "tenancy"},
		} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		data := t.ClusterData()
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			st, err := snapshot.FromGit(snapshot.GitSource{Repo: dir, Paths: []string{gentenancy.TenancyFile}})
			if err != nil {
				b.Fatal(err)
			}
			st.Overlay(data)
			st.Seal()
		}
		cputime.Report(b, cpu0)
	})
}

// BenchmarkStateWrite is writing state.json: sealing a state, which
// returns its bytes with their digest.
func BenchmarkStateWrite(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		st, _, err := tenancy(n).State()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			st.Seal()
		}
		cputime.Report(b, cpu0)
	})
}

// BenchmarkStateRead is reading state.json: decoding it and checking its
// digest, as plan does.
func BenchmarkStateRead(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		st, _, err := tenancy(n).State()
		if err != nil {
			b.Fatal(err)
		}
		data := st.Marshal()
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			if _, err := snapshot.Decode("state.json", data); err != nil {
				b.Fatal(err)
			}
		}
		cputime.Report(b, cpu0)
	})
}

// BenchmarkPlainYAMLParse is the yardstick of the main job (scripts/bench):
// one plain go.yaml.in/yaml/v3 parse of the same tenancy file, every
// document decoded into a yaml.Node tree, with no checks and no model.
func BenchmarkPlainYAMLParse(b *testing.B) {
	sizes(b, func(b *testing.B, n int) {
		src := tenancy(n).YAML()
		b.ReportAllocs()
		cpu0 := cputime.Process()
		for b.Loop() {
			if err := plainParse(src); err != nil {
				b.Fatal(err)
			}
		}
		cputime.Report(b, cpu0)
	})
}

func plainParse(src []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}
