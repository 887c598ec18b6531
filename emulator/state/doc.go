// Package state holds the engine's state ports: the interfaces of every
// store the engine keeps state in (transactions, console sessions,
// runtime scenarios, result callbacks and their outbox, captures,
// namespaces, state keys, the event journal), the records they keep, and
// the errors they return. emulator/memstore and emulator/redisstore
// implement them; emulator/state/statetest holds the contract suites
// both pass. A third backend implements these interfaces and runs those
// suites.
package state
