// Package docs holds no code: its test keeps the links of README.md and
// docs/*.md pointing at files a reader of the repository has.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mdLink matches an inline markdown link or image, [text](target), and
// mdRef a reference definition, [label]: target. The target ends at the
// first space (a title may follow) or closing parenthesis.
var (
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s[^)]*)?\)`)
	mdRef  = regexp.MustCompile(`(?m)^ {0,3}\[[^\]]+\]:\s+(\S+)`)
)

// TestLinksStayInRepository fails when README.md or a file in docs/ links to
// a path outside the repository (a reader's clone has nothing there), to a
// repository file that does not exist, or to a heading anchor that the
// linked markdown file lacks. Links to web pages are not fetched.
func TestLinksStayInRepository(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, target := range linkTargets(string(src)) {
			if msg := checkLink(root, file, target); msg != "" {
				t.Errorf("%s: link %s: %s", rel, target, msg)
			}
		}
	}
}

// checkLink says what is wrong with the link target found in file, or "".
func checkLink(root, file, target string) string {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	path, anchor, _ := strings.Cut(target, "#")
	dest := file
	if path != "" {
		if filepath.IsAbs(path) || strings.HasPrefix(path, "/") {
			return "an absolute path; link relative to the file"
		}
		dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		if r, err := filepath.Rel(root, dest); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return "no such file in the repository"
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	src, err := os.ReadFile(dest)
	if err != nil {
		return err.Error()
	}
	for _, a := range headingAnchors(string(src)) {
		if a == anchor {
			return ""
		}
	}
	return "no heading with anchor #" + anchor
}

// linkTargets returns the targets of the links in a markdown text, leaving
// out code (fenced blocks, indented blocks and inline spans), where
// brackets followed by parentheses are Python, not links. An indented line
// is code when it follows a blank line or code; after text it continues a
// list item, whose links count.
func linkTargets(src string) []string {
	var prose strings.Builder
	fenced, prevBlank, prevCode := false, true, false
	for _, line := range strings.Split(src, "\n") {
		blank := strings.TrimSpace(line) == ""
		code := fenced || strings.HasPrefix(line, "    ") && !blank && (prevBlank || prevCode)
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			code = true
		}
		prevBlank, prevCode = blank, code
		if code {
			continue
		}
		prose.WriteString(inlineCode.ReplaceAllString(line, "``"))
		prose.WriteByte('\n')
	}
	var targets []string
	for _, m := range mdLink.FindAllStringSubmatch(prose.String(), -1) {
		targets = append(targets, m[1])
	}
	for _, m := range mdRef.FindAllStringSubmatch(prose.String(), -1) {
		targets = append(targets, m[1])
	}
	return targets
}

var inlineCode = regexp.MustCompile("`[^`]*`")

// headingAnchors returns the anchors GitHub makes for a file's headings:
// lower case, punctuation other than '-' and '_' dropped, spaces to '-',
// and -1, -2, ... after repeats.
func headingAnchors(src string) []string {
	seen := map[string]int{}
	var anchors []string
	fenced := false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors = append(anchors, a+"-"+strconv.Itoa(n))
		} else {
			anchors = append(anchors, a)
		}
		seen[a]++
	}
	return anchors
}

// TestCheckLink pins what counts as a broken link, so that the test above
// cannot pass by finding nothing wrong with anything.
func TestCheckLink(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	hopper := filepath.Join(root, "docs", "hopper.md")
	for target, want := range map[string]string{
		"perf.md":                  "",
		"usage.md#the-go-api":      "",
		"#the-kernel-it-makes":     "",
		"../README.md":             "",
		"https://example.com/x.md": "",
		"../../shared/PTX.md":      "outside the repository",
		"../shared/DESIGN.md":      "no such file in the repository",
		"/work/shared/PTX.md":      "an absolute path; link relative to the file",
		"usage.md#no-such-heading": "no heading with anchor #no-such-heading",
	} {
		if got := checkLink(root, hopper, target); got != want {
			t.Errorf("checkLink(%q) = %q, want %q", target, got, want)
		}
	}
	got := linkTargets("[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n\n    code[i](j)\n    more[k](l)\n\n- item\n    [e](v.md)\n[d]: w.md\n")
	if strings.Join(got, " ") != "x.md v.md w.md" {
		t.Errorf("linkTargets = %q, want [x.md v.md w.md]", got)
	}
}
