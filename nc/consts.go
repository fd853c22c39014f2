package nc

// File modes and formats, with PnetCDF's values.
const (
	NOWRITE      = 0x0000 // open read-only
	WRITE        = 0x0001 // open read-write
	CLOBBER      = 0x0000 // create: overwrite an existing file
	NOCLOBBER    = 0x0004 // create: fail with EEXIST if the file exists
	BIT64_DATA   = 0x0020 // create CDF-5 (NC_64BIT_DATA)
	BIT64_OFFSET = 0x0200 // create CDF-2 (NC_64BIT_OFFSET)
)

// Format is a netCDF file format as reported by inq_format.
type Format int

// File formats.
const (
	FormatClassic    Format = 1 // CDF-1
	Format64BitOffst Format = 2 // CDF-2
	Format64BitData  Format = 5 // CDF-5
)

// FormatOfMode returns the format a create mode selects.
func FormatOfMode(mode int) Format {
	switch {
	case mode&BIT64_DATA != 0:
		return Format64BitData
	case mode&BIT64_OFFSET != 0:
		return Format64BitOffst
	}
	return FormatClassic
}

// Special ids and sizes.
const (
	UNLIMITED = 0  // length of the record dimension at definition
	GLOBAL    = -1 // varid of global attributes
	REQ_ALL   = -1 // wait on every pending request
	REQ_NULL  = -1 // request id of a request that needs no wait
	FILL      = 0  // set_fill: fill new data
	NOFILL    = 0x100
	MAX_NAME  = 256
)
