package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"stortest.dev/baselines"
	"stortest.dev/internal/human"
	"stortest.dev/regress"
)

// fleetHosts lists the hosts of a fleet directory: its subdirectories
// (hidden ones skipped), each a host's baselines, sorted by name.
func fleetHosts(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var hosts []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			hosts = append(hosts, e.Name())
		}
	}
	if len(hosts) < 2 {
		return nil, fmt.Errorf("%s: %d host directories: a fleet needs two at least (one subdirectory per host)", dir, len(hosts))
	}
	return hosts, nil
}

// baselineFleet is baseline diff --fleet DIR: DIR holds one directory per
// host, each with the baselines that host left (as `baseline import-fio
// --out` writes them) or its history (-stortest.history: the newest run
// of each job stands for the host); every job found on two
// hosts or more is compared host by host with the other hosts pooled
// (regress.CompareFleet), and the fleet's figures are printed with the
// slow hosts named.
func baselineFleet(dir string, cfg regress.Config, flagRules []regress.Rule, format string, stdout, stderr io.Writer) ([]regress.Report, error) {
	hosts, err := fleetHosts(dir)
	if err != nil {
		return nil, err
	}
	byJob := map[string][]regress.HostRun{}
	var jobs []string
	for _, h := range hosts {
		rels, err := baselineFiles(filepath.Join(dir, h))
		if err != nil {
			return nil, err
		}
		newest := map[string]int{} // job -> index in byJob[job] of this host's run
		for _, rel := range rels {
			b, err := baselines.Load(filepath.Join(dir, h, rel))
			if err != nil {
				return nil, err
			}
			job := fleetJob(rel, b.Name)
			if _, ok := byJob[job]; !ok {
				jobs = append(jobs, job)
			}
			if i, ok := newest[job]; ok {
				// A history holds many runs of a job: the newest stands
				// for the host.
				if b.Created.After(byJob[job][i].Baseline.Created) {
					byJob[job][i].Baseline = b
				}
				continue
			}
			newest[job] = len(byJob[job])
			byJob[job] = append(byJob[job], regress.HostRun{Host: h, Baseline: b})
		}
	}
	sort.Strings(jobs)
	var fleets []regress.FleetReport
	var reports []regress.Report
	for _, job := range jobs {
		runs := byJob[job]
		if len(runs) < 2 {
			fmt.Fprintf(stderr, "stortest baseline diff: %s: on host %s alone: not compared\n", job, runs[0].Host)
			continue
		}
		c := cfg
		if c.Rules, err = regress.ParseRules(runs[0].Baseline.Tolerances); err != nil {
			return nil, fmt.Errorf("%s/%s: its tolerances: %v", runs[0].Host, job, err)
		}
		c.Rules = append(c.Rules, flagRules...)
		fr, err := regress.CompareFleet(runs, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", job, err)
		}
		fr.Job = job
		for i := range fr.Hosts {
			fr.Hosts[i].Name = job + "@" + fr.Hosts[i].Name
		}
		fleets = append(fleets, fr)
		reports = append(reports, fr.Hosts...)
	}
	if len(fleets) == 0 {
		return nil, fmt.Errorf("%s: no job ran on two hosts or more", dir)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			Hosts []string              `json:"hosts"`
			Jobs  []regress.FleetReport `json:"jobs"`
		}{hosts, fleets})
	case "markdown":
		var b strings.Builder
		for _, fr := range fleets {
			fmt.Fprintf(&b, "### Fleet `%s`: %d hosts\n\n", fr.Job, len(fr.Hosts))
			b.WriteString("| direction | hosts | IOPS (sum) | bandwidth (sum) | clat p50 | clat p99 | clat p99.9 |\n|---|---:|---:|---:|---:|---:|---:|\n")
			for _, d := range fr.Dirs {
				fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s |\n", d.Name, d.Hosts, human.Count(d.IOPS),
					human.BW(d.BW), nsOrDash(d.ClatP50), nsOrDash(d.ClatP99), nsOrDash(d.ClatP999))
			}
			b.WriteString("\n" + slowLine(fr) + "\n\n")
		}
		if _, err = io.WriteString(stdout, b.String()); err == nil {
			err = regress.WriteMarkdown(stdout, reports...)
		}
	default:
		var b strings.Builder
		for _, fr := range fleets {
			fmt.Fprintf(&b, "fleet %s: %d hosts\n", fr.Job, len(fr.Hosts))
			for _, d := range fr.Dirs {
				fmt.Fprintf(&b, "  %s: %d hosts, IOPS=%s, BW=%s in all; clat p50=%s p99=%s p99.9=%s (merged histograms)\n", d.Name, d.Hosts,
					human.Count(d.IOPS), human.BW(d.BW), nsOrDash(d.ClatP50), nsOrDash(d.ClatP99), nsOrDash(d.ClatP999))
			}
			fmt.Fprintf(&b, "  %s\n\n", slowLine(fr))
		}
		if _, err = io.WriteString(stdout, b.String()); err == nil {
			err = regress.WriteText(stdout, reports...)
		}
	}
	return reports, err
}

// fleetJob is the key that matches a job's baselines across hosts: the
// relative path of a baseline file without ".json"
// ("TestX/randread-4k"), or for a history's run files
// (<TestName>/<job>/<time>-<host>-....json, as -stortest.history and
// stortest history add write them) their directory, whose name is the
// job's.
func fleetJob(rel, name string) string {
	dir := path.Dir(rel)
	if path.Base(dir) == name && path.Base(rel) != name+".json" {
		return dir
	}
	return strings.TrimSuffix(rel, ".json")
}

// slowLine names the hosts that regressed against the rest of the fleet,
// with their worst finding.
func slowLine(fr regress.FleetReport) string {
	slow := fr.Slow()
	if len(slow) == 0 {
		return "no host stands out from the others"
	}
	var parts []string
	for _, r := range slow {
		host := strings.TrimPrefix(r.Name, fr.Job+"@")
		s := host
		if rs := r.Regressions(); len(rs) > 0 {
			s += " (" + rs[0].Reason + ")"
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("slow host(s), against the other hosts: %s", strings.Join(parts, "; "))
}

func nsOrDash(v uint64) string {
	if v == 0 {
		return "-"
	}
	return human.Latency(float64(v))
}
