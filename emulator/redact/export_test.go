package redact

// ReferenceJSON is JSON as the reference of the differential tests makes
// it (reference_redact_test.go), for the fuzz targets of package
// redact_test to compare with.
var ReferenceJSON = refJSON
