package gentenancy

// deptTemplate is one department of a cell: its name, what it does, its
// weight on each pool (h100, a100; 0 means no queue there), the cards of
// each it keeps unassigned, and its six projects.
type deptTemplate struct {
	index    int
	name     string
	comment  string
	weights  [2]int
	keep     [2]int
	projects [6]projTemplate
}

// projTemplate is one project of a department.
type projTemplate struct {
	name    string
	comment string
	// pools lists the pools the project has a queue on: "H", "A" or "HA".
	pools string
	// weight is its share of the department's cards (0: no guarantee).
	weight int
	// interactive projects run non-preemptible work at priority 100;
	// fractional ones may hold half cards; unlabelled ones have a
	// namespace that was created by hand and never labelled.
	interactive, fractional, unlabelled bool
}

// onPool reports whether the project has a queue on pool pi (0 h100, 1 a100).
func (p *projTemplate) onPool(pi int) bool {
	for i := 0; i < len(p.pools); i++ {
		if (p.pools[i] == 'H' && pi == 0) || (p.pools[i] == 'A' && pi == 1) {
			return true
		}
	}
	return false
}

// departments are the 8 departments of a cell, 48 projects in all.
var departments = []deptTemplate{
	{name: "research", comment: "Research: pre-training and long-context work; most of the H100 share.", weights: [2]int{6, 2},
		projects: [6]projTemplate{
			{name: "foundation-models", comment: "Pre-training runs of the next base model; checkpoints often, so preemptible.", pools: "H", weight: 12},
			{name: "long-context", comment: "Long-context fine-tunes.", pools: "HA", weight: 3},
			{name: "rl-agents", comment: "Reinforcement learning for agents: rollouts on A100, updates on H100.", pools: "HA", weight: 2},
			{name: "eval-harness", comment: "Nightly evaluation suites.", pools: "A", weight: 2},
			{name: "interpretability", comment: "Probing and interpretability studies.", pools: "H", weight: 1},
			{name: "research-notebooks", comment: "Jupyter notebooks: interactive, so non-preemptible; shares cards in halves.", pools: "A", weight: 1, interactive: true, fractional: true},
		}},
	{name: "product-ml", comment: "Product ML: ranking and recommendation models behind the product.", weights: [2]int{3, 3},
		projects: [6]projTemplate{
			{name: "search-ranking", comment: "Search ranking models, retrained daily.", pools: "HA", weight: 10},
			{name: "recommendations", comment: "Recommendation models.", pools: "HA", weight: 3},
			{name: "ads-ctr", comment: "Click-through-rate models for ads.", pools: "A", weight: 2},
			{name: "embeddings", comment: "Shared embedding models.", pools: "H", weight: 2},
			{name: "query-understanding", comment: "Query rewriting and intent models.", pools: "A", weight: 1},
			{name: "product-notebooks", comment: "Notebooks of the product teams: interactive, so non-preemptible.", pools: "A", weight: 1, interactive: true},
		}},
	{name: "inference", comment: "Inference: production serving and batch inference, on A100 only.", weights: [2]int{0, 5},
		projects: [6]projTemplate{
			{name: "chat-serving", comment: "Production chat traffic: non-preemptible, never evicted.", pools: "A", weight: 5, interactive: true},
			{name: "batch-inference", comment: "Offline scoring jobs.", pools: "A", weight: 3},
			{name: "model-distill", comment: "Distillation of serving models.", pools: "A", weight: 2},
			{name: "latency-bench", comment: "Latency benchmarks of serving builds.", pools: "A", weight: 1},
			{name: "canary-serving", comment: "Canary replicas of the serving stack: non-preemptible.", pools: "A", weight: 1, interactive: true},
			{name: "inference-tools", comment: "Quantisation and compilation tooling.", pools: "A", weight: 1},
		}},
	{name: "vision", comment: "Vision: detection, segmentation and video generation.", weights: [2]int{4, 2},
		projects: [6]projTemplate{
			{name: "detection", comment: "Object detection models.", pools: "HA", weight: 12},
			{name: "segmentation", comment: "Segmentation models.", pools: "H", weight: 2},
			{name: "video-gen", comment: "Video generation research.", pools: "H", weight: 3},
			{name: "ocr", comment: "Document OCR.", pools: "A", weight: 2},
			{name: "image-embed", comment: "Image embeddings.", pools: "A", weight: 1},
			{name: "vision-notebooks", comment: "Notebooks of the vision teams: interactive, so non-preemptible.", pools: "A", weight: 1, interactive: true},
		}},
	{name: "speech", comment: "Speech: recognition and synthesis.", weights: [2]int{2, 2},
		projects: [6]projTemplate{
			{name: "asr", comment: "Speech recognition.", pools: "HA", weight: 4},
			{name: "tts", comment: "Speech synthesis.", pools: "H", weight: 2},
			{name: "speaker-id", comment: "Speaker identification.", pools: "A", weight: 1},
			{name: "diarization", comment: "Who spoke when.", pools: "A", weight: 1},
			{name: "speech-eval", comment: "Evaluation of speech models.", pools: "A", weight: 1},
			{name: "speech-notebooks", comment: "Notebooks of the speech teams: interactive, so non-preemptible.", pools: "A", weight: 1, interactive: true},
		}},
	{name: "robotics", comment: "Robotics: simulation and policy learning, on H100 only.", weights: [2]int{3, 0},
		projects: [6]projTemplate{
			{name: "world-model", comment: "World models for planning.", pools: "H", weight: 10},
			{name: "sim-rl", comment: "Reinforcement learning in simulation.", pools: "H", weight: 3},
			{name: "grasping", comment: "Grasping policies.", pools: "H", weight: 1},
			{name: "nav-policy", comment: "Navigation policies.", pools: "H", weight: 1},
			{name: "sim-render", comment: "Rendering for the simulators.", pools: "H", weight: 1},
			{name: "robotics-ci", comment: "GPU tests of the robotics stack.", pools: "H", weight: 1},
		}},
	{name: "data-platform", comment: "Data platform: curation and synthetic data, on A100 only.", weights: [2]int{0, 3},
		projects: [6]projTemplate{
			{name: "synthetic-data", comment: "Synthetic training data.", pools: "A", weight: 3},
			{name: "data-curation", comment: "Filtering and scoring of the corpus.", pools: "A", weight: 2},
			{name: "dedup", comment: "Near-duplicate detection.", pools: "A", weight: 1},
			{name: "labeling-models", comment: "Models that pre-label data for annotators.", pools: "A", weight: 1},
			{name: "data-quality", comment: "Quality classifiers.", pools: "A", weight: 1},
			{name: "embedding-index", comment: "Embedding index builds.", pools: "A", weight: 1},
		}},
	{name: "platform", comment: "Platform: CI, burn-in and the scheduler's own probes; keeps 2 h100 cards unassigned for urgent fixes.", weights: [2]int{1, 1}, keep: [2]int{2, 0},
		projects: [6]projTemplate{
			{name: "ci-gpu", comment: "GPU tests of every merge.", pools: "HA", weight: 2},
			{name: "gpu-burnin", comment: "Burn-in of new and repaired nodes.", pools: "H", weight: 1},
			{name: "benchmarks", comment: "Cluster benchmarks.", pools: "H", weight: 1},
			{name: "staging", comment: "Staging of platform services.", pools: "A", weight: 1},
			{name: "kai-verify", comment: "Probe tenant: no guarantee, borrows idle cards.", pools: "A", weight: 0},
			{name: "sandbox", comment: "Sandbox; its namespace was made by hand and never labelled.", pools: "A", weight: 1, unlabelled: true},
		}},
}

func init() {
	for i := range departments {
		departments[i].index = i
	}
}
