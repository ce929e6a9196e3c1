package behaviors

//go:generate go run ./internal/gendoc -o ../docs/behaviors.md -readme ../README.md
