package build

import (
	"strings"
	"testing"
)

// TestBuildAccepts builds small kernel bodies that exercise corners of the
// typing rules; each must build and verify.
func TestBuildAccepts(t *testing.T) {
	bodies := []string{
		"t = ct.sum(ct.zeros((4,)) > 0)",
		"t = ct.max(ct.zeros((4, 2)) > 0, axis=0)",
		"t = ct.argmax(ct.zeros((4,)) > 0, axis=0)",
		"t = abs(True) + -True + ~True",
		"t = ct.exp(1) + ct.sqrt(4.0) + ct.tanh(0)",
		"t = ct.astype(1, ct.float16) + ct.astype(ct.bid(0), ct.float16)",
		"t = ct.reshape(ct.full((), 1.0), (1,))",
		"t = ct.where(True, 1, 2) + ct.where(False, ct.zeros((2,)), 1.0)",
		"t = ct.where(ct.bid(0) > 0, ct.zeros((2,)), 1.0)",
		"t = ct.where(ct.arange(4) > 1, 1, 2.5)",
		"t = ct.bid(0) if ct.bid(1) > 0 else 3",
		"t = ct.zeros((2,)) if ct.bid(1) > 0 else ct.ones((2,))",
		"t = (ct.bid(0) > 0) and (ct.bid(1) > 0) or not ct.bid(2)",
		"t = True and ct.bid(0) > 1",
		"t = ct.bid(0) > 1 and False",
		"t = ct.sum(ct.zeros((4, 4)), keepdims=True) + ct.argmin(ct.zeros((4, 4)), keepdims=True)",
		"t = ct.expand_dims(ct.bid(0), 0)",
		"t = ct.broadcast_to(2, (4,)) + ct.broadcast_to(ct.bid(0), (4,))",
		"t = ct.cdiv(ct.bid(0), ct.bid(1)) + ct.cdiv(ct.bid(0), -2) + ct.cdiv(ct.bid(0), 1)",
		"t = ct.num_blocks(2) * 3000000000",
		"t = ct.zeros((4,), dtype=int) + ct.ones((4,), dtype=bool)",
		"t = ct.arange(8, dtype=ct.float16) + ct.arange(8, dtype=ct.int64)",
		"t = ct.zeros((4,), dtype=ct.float16) + ct.zeros((4,), dtype=ct.float64)",
		"t = ct.zeros((4,), dtype=ct.tfloat32) * 2.0",
		"t = float('inf') + int('3') + float(True) + bool(ct.bid(0)) + int(ct.bid(0) > 0)",
		"t = len((1, 2)) + len(ct.zeros((8, 2)))",
		"t = ct.zeros((4,)) // 2 + ct.zeros((4,)) % 3.0 + ct.zeros((4,)) ** 2",
		"t = ct.arange(4) ** 2 + ct.arange(4) // 3 + (ct.arange(4) ^ 1)",
		"t = min(1, 2, ct.bid(0)) + max((ct.bid(0), 5))",
		"t = ct.minimum(ct.zeros((2, 1)), ct.zeros((1, 4))) + ct.maximum(True, ct.arange(4))",
		"t = ct.zeros((2, 2)) @ ct.zeros((2, 2))",
		"t = ct.sum(ct.zeros((2, 4)), axis=None)",
		"t = ct.transpose(ct.zeros((2, 4, 8)))",
		"t = ct.permute(ct.zeros((2, 4, 8)), (-1, 0, 1))",
		"t = 2 ** -1 + 7 // -2 + -7 % 3 + (1 << 3 >> 1) + (3 & 5 | 2 ^ 1)",
		"t = (1, 2) + (3,)\n    u = t[-1] + t[0]",
		"t = ct.float16 == ct.float16 and ct.PaddingMode.ZERO != ct.PaddingMode.NAN",
		"t = None\n    if t == None:\n        t = 1",
		"acc = 0\n    for i in range(4):\n        acc = acc + i",
		"acc = 0.0\n    for i in range(ct.bid(0), 10):\n        acc += 1",
		"flag = False\n    for i in range(4):\n        flag = True\n    t = flag",
		"x = 1\n    if ct.bid(0) > 0:\n        x = ct.bid(1)\n    t = x + 1",
		"x = 1\n    if ct.bid(0) > 0:\n        x = 2.5\n    else:\n        x = 3\n    t = x + 1",
		"if ct.bid(0) > 0:\n        pass\n    elif ct.bid(1) > 0:\n        y = 1\n    else:\n        pass",
		"for i in range(3):\n        if i > 1:\n            continue_ = i",
		"n = ct.bid(0)\n    for i in range(n):\n        n = n - 1\n    t = n",
		"for i in range(2):\n        for j in range(i, 4):\n            t = i + j",
		"return",
	}
	for _, body := range bodies {
		src := "import cuda.tile as ct\n\n@ct.kernel\ndef k(A: ct.Array[ct.float32, (N,)]):\n    " + body + "\n"
		if _, err := compile("accept.tile", []byte(src), Options{}); err != nil {
			t.Errorf("%s:\n%v", strings.ReplaceAll(body, "\n    ", "; "), err)
		}
	}
}
