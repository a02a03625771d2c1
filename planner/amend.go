package planner

// AddFindings adds findings made outside the checks (the API server's
// dry run of the steps) to the plan, and recomputes what depends on them:
// the order of the findings, Renderable (an error finding blocks render),
// the summary's counts and the plan_id. Nothing else of the plan changes.
func (p *Plan) AddFindings(fs ...Finding) {
	if len(fs) == 0 {
		return
	}
	p.Findings = append(p.Findings, fs...)
	sortFindings(p.Findings)
	p.Renderable = !hasErrors(p.Findings)
	p.Summary = summarize(p.Changes, p.Findings)
	p.seal()
}
