// Package fleet holds the files a team copies to run stortest on a fleet
// of hosts with the scheduler it already has, and the tests that lint
// them:
//
//   - github/storage-fleet.yml: a GitHub Actions workflow, a matrix over
//     self-hosted runners (one per host) that each run the same job and
//     keep their results as an artifact, then a job that merges them
//     (stortest hist merge --summary, baseline diff --fleet, history
//     changes);
//   - kubernetes/: an Indexed Job of one privileged pod per node
//     (measure-job.yaml) writing to a shared volume (results-pvc.yaml),
//     and the Job that merges what they left (merge-job.yaml).
//
// The workflow is linted with actionlint and the manifests are checked
// against testdata/k8s-subset.schema.json, both offline, by go test.
package fleet
