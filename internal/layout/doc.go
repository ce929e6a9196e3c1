// Package layout holds no code: its test checks the shape of the module's
// tree against the limits the project keeps (issue 13): no package over
// MaxPackageLines lines of hand-written non-test Go, no such file over
// MaxFileLines. Packages that are still over carry their ceiling in the
// test's allow-list, so they can shrink but not grow.
package layout

// MaxPackageLines is the most lines of hand-written, non-test Go a package
// may hold.
const MaxPackageLines = 1500

// MaxFileLines is the most lines a hand-written Go file may hold.
const MaxFileLines = 600
