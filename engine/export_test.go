package engine

// SeenMessages is the number of message ids the agent remembers as sent
// (seenMsg), for the tests of its bound.
func SeenMessages(a *Agent) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.seenMsg)
}
