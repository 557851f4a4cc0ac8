package interp

import "math"

var nan = math.NaN()
