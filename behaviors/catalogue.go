package behaviors

// Catalogue returns a registry holding every built-in behavior. Each call
// returns a new registry, so a program may add its own behaviors to it.
func Catalogue() *Registry {
	return NewRegistry().MustRegister(
		skipWorkingSpec,
		newTaskIDOnContinuationSpec,
		neverTerminalSpec,
		stuckSubmittedSpec,
		failInsteadOfInputRequiredSpec,
		inputRequiredWithoutWorkingSpec,
		transitionAfterTerminalSpec,
		duplicateTerminalSpec,
		statusForOtherTaskSpec,
		contextIDDriftSpec,
		mintTaskForUnknownIDSpec,
		forgetTaskSpec,
		ignoreCancelSpec,
		wrongErrorCodeSpec,
		streamNoFinalSpec,
		streamHangSpec,
		streamEOFMidFrameSpec,
		streamDropEventsSpec,
		streamDuplicateEventsSpec,
		streamReorderEventsSpec,
		resubscribeGapSpec,
		slowStreamSpec,
		artifactChunkFaultsSpec,
		streamErrorAsJSONSpec,
		sseFramingSpec,
		contentTypeSpec,
		errorDataShapeSpec,
		restErrorDialectSpec,
		sendResultEnvelopeSpec,
		cardUnderclaimsSpec,
		listPaginationLoopSpec,
		bufferedBurstSpec,
		idleGapSpec,
		latencySpec,
		cardOverclaimsSpec,
		versionSkewSpec,
		legacyCardPathOnlySpec,
		httpErrorSpec,
		connectionResetSpec,
		emptyResponseSpec,
		malformedJSONSpec,
		truncatedBodySpec,
		pushDropSpec,
		pushDuplicateSpec,
		pushReorderSpec,
		pushDelaySpec,
		pushBeforeResponseSpec,
		pushOnceSpec,
		pushBadTokenSpec,
		pushReplayAfterTerminalSpec,
		authFlakySpec,
		extendedCardDiffersSpec,
	)
}

// Parse builds a built-in behavior from text ("name:key=value,...") using
// Catalogue.
func Parse(text string) (*Scoped, error) { return Catalogue().Parse(text) }
