// Command templates-oracle renders the template corpus with Go's text/template and Sprig (and the
// Helm functions include, tpl, required, toYaml, fromYaml, as Helm defines them) and writes the
// golden outputs the TypeScript engine is compared against.
//
// Usage: go run . CORPUS_DIR   (writes NAME.golden.json beside each NAME.json)
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// Case is one corpus entry.
type Case struct {
	Name       string          `json:"name"`
	Tmpl       string          `json:"tmpl"`
	Data       json.RawMessage `json:"data"`
	MissingKey string          `json:"missingKey,omitempty"`
	Helm       bool            `json:"helm,omitempty"`
	Defines    [][2]string     `json:"defines,omitempty"`
}

// Result is one golden entry: the output or the error, and which phase failed.
type Result struct {
	Name   string `json:"name"`
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	Phase  string `json:"phase,omitempty"`
}

// decode turns JSON data into Go values; {"$int": n}, {"$int64": n}, {"$strings": [...]} and
// {"$strmap": {...}} give int, int64, []string and map[string]string.
func decode(v interface{}) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		if len(x) == 1 {
			for k, inner := range x {
				switch k {
				case "$int":
					return int(inner.(float64))
				case "$int64":
					return int64(inner.(float64))
				case "$strings":
					out := []string{}
					for _, s := range inner.([]interface{}) {
						out = append(out, s.(string))
					}
					return out
				case "$strmap":
					out := map[string]string{}
					for k2, s := range inner.(map[string]interface{}) {
						out[k2] = s.(string)
					}
					return out
				}
			}
		}
		out := map[string]interface{}{}
		for k, inner := range x {
			out[k] = decode(inner)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, inner := range x {
			out[i] = decode(inner)
		}
		return out
	}
	return v
}

func helmFuncs(t *template.Template) template.FuncMap {
	return template.FuncMap{
		"toYaml": func(v interface{}) string {
			data, err := yaml.Marshal(v)
			if err != nil {
				return ""
			}
			return strings.TrimSuffix(string(data), "\n")
		},
		"fromYaml": func(str string) map[string]interface{} {
			m := map[string]interface{}{}
			if err := yaml.Unmarshal([]byte(str), &m); err != nil {
				m["Error"] = err.Error()
			}
			return m
		},
		"required": func(warn string, val interface{}) (interface{}, error) {
			if val == nil {
				return val, errors.New(warn)
			} else if s, ok := val.(string); ok && s == "" {
				return val, errors.New(warn)
			}
			return val, nil
		},
		"include": func(name string, data interface{}) (string, error) {
			var buf strings.Builder
			err := t.ExecuteTemplate(&buf, name, data)
			return buf.String(), err
		},
		"tpl": func(text string, vals interface{}) (string, error) {
			c, err := t.Clone()
			if err != nil {
				return "", err
			}
			c, err = c.New(t.Name()).Parse(text)
			if err != nil {
				return "", fmt.Errorf("cannot parse template %q: %w", text, err)
			}
			var buf strings.Builder
			if err := c.Execute(&buf, vals); err != nil {
				return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
			}
			return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
		},
	}
}

func run(c Case) (res Result) {
	res.Name = c.Name
	defer func() {
		if r := recover(); r != nil {
			res.Output, res.Error, res.Phase = "", fmt.Sprint(r), "panic"
		}
	}()
	var raw interface{}
	if len(c.Data) > 0 {
		if err := json.Unmarshal(c.Data, &raw); err != nil {
			return Result{Name: c.Name, Error: err.Error(), Phase: "data"}
		}
	}
	data := decode(raw)
	t := template.New(c.Name)
	funcs := sprig.TxtFuncMap()
	if c.Helm {
		for k, v := range helmFuncs(t) {
			funcs[k] = v
		}
	}
	t.Funcs(funcs)
	if c.MissingKey != "" {
		t.Option("missingkey=" + c.MissingKey)
	}
	for _, d := range c.Defines {
		if _, err := t.New(d[0]).Parse(d[1]); err != nil {
			res.Error, res.Phase = err.Error(), "parse"
			return
		}
	}
	if _, err := t.New(c.Name).Parse(c.Tmpl); err != nil {
		res.Error, res.Phase = err.Error(), "parse"
		return
	}
	var out strings.Builder
	if err := t.ExecuteTemplate(&out, c.Name, data); err != nil {
		res.Error, res.Phase = err.Error(), "exec"
		return
	}
	res.Output = out.String()
	return
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: templates-oracle CORPUS_DIR")
		os.Exit(2)
	}
	files, _ := filepath.Glob(filepath.Join(os.Args[1], "*.json"))
	sort.Strings(files)
	for _, f := range files {
		if strings.HasSuffix(f, ".golden.json") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var cases []Case
		if err := json.Unmarshal(b, &cases); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", f, err)
			os.Exit(1)
		}
		results := make([]Result, 0, len(cases))
		for _, c := range cases {
			results = append(results, run(c))
		}
		var sb strings.Builder
		enc := json.NewEncoder(&sb)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			panic(err)
		}
		golden := strings.TrimSuffix(f, ".json") + ".golden.json"
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d cases\n", golden, len(results))
	}
}
