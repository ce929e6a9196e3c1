// Package lenient decodes what it can of a YAML document some of whose
// values are known to be at fault: it drops them and decodes the rest
// without strictness, so that a checker can go on to the problems the
// rest holds. Paths are written as the scenario checker writes them: keys
// joined with ".", list elements as [i].
package lenient

import (
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// Decode decodes data into out after dropping the values at the paths in
// bad (a list element is left empty, so that its siblings keep their
// paths). It reports false when even that does not decode; a panic in
// the YAML library on a broken document is reported as false too.
func Decode(data []byte, bad map[string]bool, out any) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var doc any
	if yaml.Unmarshal(data, &doc) != nil {
		return false
	}
	b, err := yaml.Marshal(prune(doc, "", bad))
	return err == nil && yaml.Unmarshal(b, out) == nil
}

// prune drops the values under v whose paths are bad.
func prune(v any, path string, bad map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, child := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if bad[p] {
				delete(x, k)
			} else {
				x[k] = prune(child, p, bad)
			}
		}
	case []any:
		for i, child := range x {
			if p := fmt.Sprintf("%s[%d]", path, i); bad[p] {
				x[i] = nil
			} else {
				x[i] = prune(child, p, bad)
			}
		}
	}
	return v
}

// Under reports whether path is at or below one of the paths at ("" in at
// stands for none).
func Under(path string, at []string) bool {
	for _, a := range at {
		if a != "" && (path == a || strings.HasPrefix(path, a+".") || strings.HasPrefix(path, a+"[")) {
			return true
		}
	}
	return false
}
