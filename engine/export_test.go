package engine

// SeenMessages is the number of message ids the agent remembers as sent
// (seenMsg), for the tests of its bound.
func SeenMessages(a *Agent) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.seenMsg)
}

// Remember records that message id went to task, as a send does.
func Remember(a *Agent, id, task string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rememberMessageLocked(id, task)
}
