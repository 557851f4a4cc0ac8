package build

// Strict mode (Options.Strict, tilec --strict): what tilec accepts
// beyond cuTile 1.6 becomes an error that says what cuTile takes instead,
// so that a kernel written against tilec also runs under cuTile. The
// extensions, each reported where the builder meets it:
//
//   - tile methods cuTile's Tile lacks: t.sum, t.max, t.min, t.argmax,
//     t.argmin, t.expand_dims, t.broadcast_to (cuTile has the functions,
//     ct.sum(t, ...));
//   - t.reshape(2, 4) and t.permute(1, 0), the dims unpacked (cuTile takes
//     one tuple);
//   - ct.Array[dtype, (dims)] parameter annotations (cuTile's arrays are
//     unannotated; their dtype and rank come at launch, tilec's --arg);
//   - @ct.kernel(grid=...) (cuTile gives the grid to ct.launch);
//   - ct.arange(n) without dtype= (cuTile requires it).

import "github.com/tilec/tilec/lang"

// extensionMethods are the tile methods tilec has and cuTile 1.6's Tile
// does not.
var extensionMethods = map[string]bool{
	"sum": true, "max": true, "min": true, "argmax": true, "argmin": true, "expand_dims": true, "broadcast_to": true,
}

// extension reports, in strict mode, that what is at pos is a tilec
// extension, and what cuTile 1.6 takes instead.
func (b *builder) extension(pos lang.Pos, what, instead string) {
	if !b.opts.Strict || b.extensionsSeen[pos] {
		return
	}
	if b.extensionsSeen == nil {
		b.extensionsSeen = map[lang.Pos]bool{}
	}
	b.extensionsSeen[pos] = true
	b.errorf(pos, "%s is a tilec extension, not cuTile 1.6 (--strict): %s", what, instead)
}
