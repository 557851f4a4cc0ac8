package runtime

import "math"

var nan = math.NaN()
