package host

import "testing"

// TestDictsAndSets: host code's dicts and sets behave as Python's: keys by
// value (1, 1.0 and True are one key, the first spelling kept), insertion
// order, KeyError for a missing key, in-place d[k] += v, shared (not
// copied) when bound to another name.
func TestDictsAndSets(t *testing.T) {
	const d = "d = dict()\nd['a'] = 1\nd[2] = (1, 2)\n"
	expectScripts(t, []scriptCase{
		{d + "print(d, len(d), bool(d), bool(dict()))", "{'a': 1, 2: (1, 2)} 2 True False"},
		{d + "d[1.0] = 'x'\nd[True] = 'y'\nprint(d)", "{'a': 1, 2: (1, 2), 1.0: 'y'}"},
		{d + "print(d.get('b'), d.get('b', 5), d.get('a'), d.get(2.0))", "None 5 1 (1, 2)"},
		{d + "for k in d:\n    print(k)", "a\n2"},
		{d + "for k, v in d.items():\n    print(k, v)\nprint(len(d.keys()), d.values()[0])", "a 1\n2 (1, 2)\n2 1"},
		{d + "d['a'] += 5\ne = d\ne['b'] = 0\nprint(d['a'], len(d), d.pop('a'), len(d), d.pop('q', -1))", "6 3 6 2 -1"},
		{d + "print(d.setdefault('a', 9), d.setdefault('c', 9), d['c'])", "1 9 9"},
		{d + "c = d.copy()\nc['a'] = 0\nd.update(z=3)\nprint(d['a'], c['a'], d['z'], len(c))", "1 0 3 2"},
		{"print(dict(a=1) == dict((('a', 1),)), dict(a=1) == dict(a=2), dict(x=(1, 2)))", "True False {'x': (1, 2)}"},
		{"k = dict()\nk[(1, 'a')] = torch.float16\nk[torch.float32] = x.shape\nprint(k[(1, 'a')], k[torch.float32], len(k))", "torch.float16 torch.Size([2, 3]) 2"},
		{"s = set()\ns.add(3)\ns.add(3.0)\ns.add('x')\nprint(s, len(s), set((1, 2, 2)), set())", "{3, 'x'} 2 {1, 2} set()"},
		{"s = set((1, 2, 3))\ns.discard(5)\ns.remove(2)\ns.update((7, 1))\nprint(s, tuple(s), set((1, 3, 7)) == s)", "{1, 3, 7} (1, 3, 7) True"},
		// Containers show their items' repr, as Python's do: strings quoted.
		{"print(('a', 1, None), str((\"it's\",)), f\"{('b',)}\")", `('a', 1, None) ("it's",) ('b',)`},
		{d + "print(d['z'])", "error: KeyError: 'z'"},
		{d + "d['z'] += 1", "error: KeyError: 'z'"},
		{d + "d[dict()] = 1", "error: TypeError: unhashable type: 'dict'"},
		{"s = set()\ns.remove(4)", "error: KeyError: 4"},
		{"s = set()\ns[0] = 1", "error: a set of 0 does not support item assignment"},
		{d + "d.add(1)", "error: dict.add is not part of the host subset (it has get, setdefault, keys, values, items, pop, update, copy, clear)"},
	})
}
