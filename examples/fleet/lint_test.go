package fleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pb33f/jsonschema/v6"
	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

const workflow = "github/storage-fleet.yml"

// lintWorkflow runs actionlint over a workflow's bytes, with its own
// checks only (shellcheck and pyflakes, when installed, would make the
// result depend on the machine).
func lintWorkflow(t *testing.T, name string, src []byte) []*actionlint.Error {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{ConfigFile: "github/actionlint.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.Lint(name, src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return errs
}

func TestWorkflowLints(t *testing.T) {
	src, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range lintWorkflow(t, workflow, src) {
		t.Errorf("%s:%d:%d: %s [%s]", workflow, e.Line, e.Column, e.Message, e.Kind)
	}
}

// The lint is no formality: the shipped workflow with a mistake in it
// fails.
func TestWorkflowLintCatchesMistakes(t *testing.T) {
	src, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string][2]string{
		"matrix key":       {"${{ matrix.host }}/", "${{ matrix.hots }}/"},
		"needs":            {"needs: measure", "needs: measur"},
		"unknown step key": {"retention-days: 30", "retention-days: 30\n        wiht: {}"},
		"number":           {"timeout-minutes: 30", "timeout-minutes: thirty"},
		"runner label":     {"storage-04]", "storage-05]"},
	} {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(string(src), edit[0], edit[1], 1)
			if bad == string(src) {
				t.Fatalf("%q not in the workflow", edit[0])
			}
			if errs := lintWorkflow(t, workflow, []byte(bad)); len(errs) == 0 {
				t.Errorf("actionlint passed the workflow with %s broken", name)
			}
		})
	}
}

// k8sSchema compiles the schema subset of the objects the manifests use.
func k8sSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open("testdata/k8s-subset.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("k8s-subset.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("k8s-subset.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// manifests splits a YAML file into its documents, each as the JSON
// value the API server would receive.
func manifests(data []byte) ([]any, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []any
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if doc == nil {
			continue
		}
		// Through JSON, so that numbers and maps are what the schema
		// validator takes.
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// checkManifest validates one object against the schema and what the
// schema cannot say: every volume mounted is declared, and every
// persistent volume claim used is one of claims.
func checkManifest(s *jsonschema.Schema, obj any, claims map[string]bool) error {
	if err := s.Validate(obj); err != nil {
		return err
	}
	m, _ := obj.(map[string]any)
	if m["kind"] != "Job" {
		return nil
	}
	pod := dig(m, "spec", "template", "spec")
	declared := map[string]bool{}
	for _, v := range list(pod["volumes"]) {
		vol := v.(map[string]any)
		declared[vol["name"].(string)] = true
		if pvc, ok := vol["persistentVolumeClaim"].(map[string]any); ok && !claims[pvc["claimName"].(string)] {
			return fmt.Errorf("volume %v: claim %v is not among the manifests' claims", vol["name"], pvc["claimName"])
		}
	}
	for _, c := range list(pod["containers"]) {
		for _, vm := range list(c.(map[string]any)["volumeMounts"]) {
			if name := vm.(map[string]any)["name"].(string); !declared[name] {
				return fmt.Errorf("container %v mounts volume %q, which the pod does not declare", c.(map[string]any)["name"], name)
			}
		}
	}
	return nil
}

func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m, _ = m[k].(map[string]any)
	}
	return m
}

func list(v any) []any { l, _ := v.([]any); return l }

func readManifests(t *testing.T) (map[string][]any, map[string]bool) {
	t.Helper()
	files, err := filepath.Glob("kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	docs := map[string][]any{}
	claims := map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifests(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		docs[f] = objs
		for _, o := range objs {
			if m, _ := o.(map[string]any); m["kind"] == "PersistentVolumeClaim" {
				claims[dig(m, "metadata")["name"].(string)] = true
			}
		}
	}
	return docs, claims
}

func TestKubernetesManifests(t *testing.T) {
	s := k8sSchema(t)
	docs, claims := readManifests(t)
	kinds := map[string]int{}
	for f, objs := range docs {
		for i, o := range objs {
			if err := checkManifest(s, o, claims); err != nil {
				t.Errorf("%s: document %d: %v", f, i+1, err)
			}
			kinds[o.(map[string]any)["kind"].(string)]++
		}
	}
	if kinds["Job"] != 2 || kinds["PersistentVolumeClaim"] != 1 {
		t.Errorf("kinds %v: want two Jobs and a claim", kinds)
	}
	measure := docs[filepath.Join("kubernetes", "measure-job.yaml")][0].(map[string]any)
	spec := dig(measure, "spec")
	if spec["completionMode"] != "Indexed" || spec["completions"] != spec["parallelism"] {
		t.Errorf("measure job: %v completions %v parallelism %v: want an Indexed Job running every pod at once",
			spec["completionMode"], spec["completions"], spec["parallelism"])
	}
	anti := dig(spec, "template", "spec", "affinity", "podAntiAffinity")
	if len(list(anti["requiredDuringSchedulingIgnoredDuringExecution"])) != 1 {
		t.Error("measure job: want a required anti-affinity: one pod per node")
	}
}

// The schema check is no formality: each of these mistakes fails it.
func TestKubernetesCheckCatchesMistakes(t *testing.T) {
	s := k8sSchema(t)
	data, err := os.ReadFile(filepath.Join("kubernetes", "measure-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, claims := readManifests(t)
	for name, edit := range map[string][2]string{
		"misspelt field":         {"completionMode: Indexed", "completionMod: Indexed"},
		"bad enum":               {"completionMode: Indexed", "completionMode: indexed"},
		"restart always":         {"restartPolicy: Never", "restartPolicy: Always"},
		"indexed, no completion": {"  completions: 4\n", ""},
		"string for a number":    {"backoffLimit: 0", "backoffLimit: none"},
		"undeclared volume":      {"- name: target\n              mountPath", "- name: tagret\n              mountPath"},
		"unknown claim":          {"claimName: stortest-results", "claimName: stortest-result"},
		"hostPath type":          {"type: BlockDevice", "type: Block"},
	} {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(string(data), edit[0], edit[1], 1)
			if bad == string(data) {
				t.Fatalf("%q not in the manifest", edit[0])
			}
			objs, err := manifests([]byte(bad))
			if err != nil {
				t.Fatal(err)
			}
			if err := checkManifest(s, objs[0], claims); err == nil {
				t.Errorf("the check passed the manifest with a %s", name)
			}
		})
	}
}
