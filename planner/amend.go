package planner

// AddFindings adds findings made outside the checks (the API server's
// dry run of the steps) to the plan, and recomputes what depends on them:
// the order of the findings and the summary's counts (and so whether the
// plan renders). The plan must be encoded again: its PlanID is cleared.
func (p *Plan) AddFindings(fs ...Finding) {
	if len(fs) == 0 {
		return
	}
	p.Findings = append(p.Findings, fs...)
	sortFindings(p.Findings)
	p.Summary = p.summary()
	p.PlanID = ""
}
