package bench

import "github.com/couplet-hpc/couplet/internal/mpilaunch"

// Each throughput case runs in several separate launches, so that one
// launch that ran alongside other work, or that a page-cache or placement
// accident favoured, cannot make a number: the report gives the median of
// the launch medians with the spread across launches. Ratios are taken
// between those medians.

// launchEnv is mpirun's part of every MPI launch of the bench: ranks bound to cores,
// round-robin. Open MPI binds no rank of a job with more ranks than cores, and the
// kernel then moves ranks between cores as they sleep and wake: case 1 at 256 MiB read
// couplet / raw MPI 0.90-0.96 in six such launches against 0.96-1.03 in six bound ones
// (interleaved, and raw MPI itself ran faster and steadier bound), and at 1 GiB 0.77-0.96
// against 0.92-1.01 in four of each. Separate launches (case 6a) bind alike, so writers
// and readers sit where one MPMD launch puts them.
var launchEnv = []string{mpilaunch.BindCores}

// mergeExchange combines case-1 points of one size from separate launches.
func mergeExchange(ps []ExchangePoint) ExchangePoint {
	if len(ps) == 1 {
		return ps[0]
	}
	out := ps[0]
	out.Launches = len(ps)
	out.LaunchSeconds = perLaunch(ps, func(p ExchangePoint) map[string]Summary { return p.Seconds })
	out.Seconds = mergeMaps(out.LaunchSeconds)
	out.GBps = mergeMaps(perLaunch(ps, func(p ExchangePoint) map[string]Summary { return p.GBps }))
	out.setRatios()
	return out
}

// mergeUCXExchange combines case-6a points of one size from separate launches.
func mergeUCXExchange(ps []UCXExchangePoint) UCXExchangePoint {
	if len(ps) == 1 {
		return ps[0]
	}
	out := ps[0]
	out.Launches = len(ps)
	out.LaunchSeconds = perLaunch(ps, func(p UCXExchangePoint) map[string]Summary { return p.Seconds })
	out.Seconds = mergeMaps(out.LaunchSeconds)
	out.GBps = mergeMaps(perLaunch(ps, func(p UCXExchangePoint) map[string]Summary { return p.GBps }))
	out.VsMPI = map[string]float64{}
	for sys, s := range out.Seconds {
		out.VsMPI[sys] = ratio(out.Seconds[SysCoupledMPI].Median, s.Median)
	}
	out.TCPvsRawTCP = ratio(out.Seconds[SysRawMPITCP].Median, out.Seconds[SysUCXTCP].Median)
	return out
}

// mergeStaging combines case-4/6b points of one size from separate launches.
func mergeStaging(ps []StagingPoint) StagingPoint {
	if len(ps) == 1 {
		return ps[0]
	}
	out := ps[0]
	out.Launches = len(ps)
	out.LaunchSeconds = perLaunch(ps, func(p StagingPoint) map[string]Summary { return p.Seconds })
	out.Seconds = mergeMaps(out.LaunchSeconds)
	out.GBps = mergeMaps(perLaunch(ps, func(p StagingPoint) map[string]Summary { return p.GBps }))
	var hs []Summary
	for _, p := range ps {
		hs = append(hs, p.HashSeconds)
	}
	out.HashSeconds = MergeLaunches(hs)
	out.HashShare = ratio(out.HashSeconds.Median, out.Seconds[StageRPC].Median)
	var ws []Summary
	for _, p := range ps {
		ws = append(ws, p.HashWait)
	}
	out.HashWait = MergeLaunches(ws)
	out.HashWaitShare = ratio(out.HashWait.Median, out.Seconds[StageRPC].Median)
	var as []Summary
	for _, p := range ps {
		as = append(as, p.HashAdded)
	}
	out.HashAdded = MergeLaunches(as)
	out.HashAddedShare = ratio(out.HashAdded.Median, out.Seconds[StageRPC].Median)
	out.RPCvsTCP = ratio(out.Seconds[StageRawTCP].Median, out.Seconds[StageRPC].Median)
	out.RPCvsCp = ratio(out.Seconds[StageCp].Median, out.Seconds[StageRPC].Median)
	out.UCXvsRPC = map[string]float64{}
	for _, sys := range []string{StageUCXSM, StageUCXTCP} {
		if s, ok := out.Seconds[sys]; ok {
			out.UCXvsRPC[sys] = ratio(out.Seconds[StageRPC].Median, s.Median)
		}
	}
	return out
}

// perLaunch picks one per-system map out of each launch's point.
func perLaunch[P any](ps []P, get func(P) map[string]Summary) []map[string]Summary {
	out := make([]map[string]Summary, len(ps))
	for i, p := range ps {
		out[i] = get(p)
	}
	return out
}
