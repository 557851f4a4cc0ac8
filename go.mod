module github.com/tilec/tilec

go 1.26.8

require (
	github.com/google/uuid v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	gorgonia.org/cu v0.9.6 // indirect
)
