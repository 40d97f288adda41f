package stortest

import "stortest.dev/regress"

// setLook makes cfg judge look of looks (regress.Config.Look, Looks):
// the sequential test of RepeatWhileInconclusive.
func setLook(cfg *regress.Config, look, looks int) { cfg.Look, cfg.Looks = look, looks }

// runAgain says whether another run of this session could settle what
// rep leaves inconclusive (regress.Report.RunAgain).
func runAgain(rep regress.Report) bool { return rep.RunAgain() }
