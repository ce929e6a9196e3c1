// Command a2amock here is a stand-in: the smallest program the image
// builder's tests compile, so they do not rebuild the real binary and the
// standard library it needs (minutes on a cold cache).
package main

func main() {
	println("tiny a2amock stand-in")
}
