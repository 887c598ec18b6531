package emulator

// SealAppKey seals an exchange key as the app lookup does, for the tests
// that make app-channel transactions before the lookup exists in them.
func (e *Engine) SealAppKey(key []byte, acsTransID string) (string, error) {
	return e.seal.Seal(key, acsTransID)
}
