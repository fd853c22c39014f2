package dtf

import "github.com/couplet-hpc/couplet/dtf/config"

// The configuration lives in dtf/config (parsing and checking, no MPI); these
// names keep dtf's API and the engine's code as they were.
type (
	Config        = config.Config
	FileConfig    = config.FileConfig
	ConfigError   = config.ConfigError
	CompatNote    = config.CompatNote
	Pattern       = config.Pattern
	PartitionMode = config.PartitionMode
	UnwrittenMode = config.UnwrittenMode
	TransportKind = config.TransportKind
	LaunchMode    = config.LaunchMode
	FileMode      = config.FileMode
)

// Values of the configuration's enumerations and defaults (see dtf/config).
const (
	PartitionRange          = config.PartitionRange
	PartitionVarID          = config.PartitionVarID
	UnwrittenError          = config.UnwrittenError
	UnwrittenFill           = config.UnwrittenFill
	TransportMPI            = config.TransportMPI
	TransportUCX            = config.TransportUCX
	LaunchMPMD              = config.LaunchMPMD
	LaunchSeparate          = config.LaunchSeparate
	ModeTransfer            = config.ModeTransfer
	ModeFile                = config.ModeFile
	DefaultTimeout          = config.DefaultTimeout
	DefaultMaxWorkgroupSize = config.DefaultMaxWorkgroupSize
	DefaultDataMsgSizeLimit = config.DefaultDataMsgSizeLimit
	NoEffectMsg             = config.NoEffectMsg
)

// Functions of dtf/config, under their old names.
var (
	LoadConfig             = config.LoadConfig
	LoadConfigEnv          = config.LoadConfigEnv
	ParseConfig            = config.ParseConfig
	ConfigPath             = config.ConfigPath
	CompilePattern         = config.CompilePattern
	CompileAnchoredPattern = config.CompileAnchoredPattern
)
