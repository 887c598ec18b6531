// Package message holds the messages of the interface and of the browser
// flows as typed values: the lookup, enquiry and device data collection
// requests and answers (spec 2.2-2.15), the CReq and CRes and the forms
// that carry them, threeDSMethodData, and the capture form's fields, with
// the bounds and parsers of each. It decides nothing: the engine
// (package emulator) answers these messages, package wire decodes them
// from JSON, and the transport renders them.
package message
