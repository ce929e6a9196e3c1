// Package subset is a set of a few items kept in a slice, for a task's
// subscribers: nearly always one (the send waiting for the task, or a
// stream). A map cost every new task an allocation, and every step a map
// iteration (two, counting broadcast's); a slice costs one small
// allocation and ranges for almost nothing. Membership is a linear scan,
// which stays cheap for the few subscribers a task has.
package subset

import "slices"

// Set is a set of items, in the order they were added; the zero Set is
// empty. It is not safe for concurrent use.
// A Set is not copied once used: items may point to one, its own room for
// the first item, so a set of one item costs no allocation.
type Set[T comparable] struct {
	items []T
	one   [1]T
}

// Add adds v unless s holds it already.
func (s *Set[T]) Add(v T) {
	if s.items == nil {
		s.items = s.one[:0]
	}
	if !slices.Contains(s.items, v) {
		s.items = append(s.items, v)
	}
}

// Remove removes v and reports whether s held it.
func (s *Set[T]) Remove(v T) bool {
	i := slices.Index(s.items, v)
	if i < 0 {
		return false
	}
	s.items = slices.Delete(s.items, i, i+1)
	return true
}

// Len is the number of items.
func (s *Set[T]) Len() int { return len(s.items) }

// Items are the items, to range over; the caller does not change them.
func (s *Set[T]) Items() []T { return s.items }

// Keep removes the items keep reports false for, calling it once per item
// in order.
func (s *Set[T]) Keep(keep func(T) bool) {
	s.items = slices.DeleteFunc(s.items, func(v T) bool { return !keep(v) })
}

// Clear removes every item.
func (s *Set[T]) Clear() {
	clear(s.items)
	s.items = s.items[:0]
}
