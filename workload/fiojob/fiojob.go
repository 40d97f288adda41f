package fiojob

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"stortest.dev/fio"
	"stortest.dev/workload"
	"stortest.dev/workload/validate"
)

// Errors of Parse, for errors.Is. Bad values also
// match ErrInvalid; what stortest does not do, ErrUnsupported.
var (
	ErrSyntax        = errors.New("workload: fio job syntax")
	ErrUnknownOption = errors.New("workload: unknown fio option")
)

// ParseError is an error of Parse and says where: File
// and Line (1-based) for a job file, Arg (0-based index into the
// arguments) for a command line.
type ParseError struct {
	File   string // "" for a command line
	Line   int    // 0 for a command line
	Arg    int    // -1 for a job file
	Job    string // the job section, "" if none yet or [global]
	Option string // the fio option, "" if the error is not about one
	// Unset names the ${NAME}s on the job-file line of the error that
	// are not set in the environment: fio reads them as empty, which
	// is often why the value is empty or bad.
	Unset []string
	Err   error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("workload: ")
	if e.Arg >= 0 {
		fmt.Fprintf(&b, "args[%d]: ", e.Arg)
	} else {
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	}
	if e.Job != "" {
		fmt.Fprintf(&b, "job %q: ", e.Job)
	}
	if e.Option != "" {
		b.WriteString(e.Option + ": ")
	}
	var fe *workload.FieldError
	if errors.As(e.Err, &fe) {
		b.WriteString(fe.Reason)
	} else {
		b.WriteString(e.Err.Error())
	}
	if len(e.Unset) > 0 {
		names := make([]string, len(e.Unset))
		for i, n := range e.Unset {
			names[i] = "${" + n + "}"
		}
		verb := "is"
		if len(names) > 1 {
			verb = "are"
		}
		fmt.Fprintf(&b, "; %s %s not set: fio reads it as empty", strings.Join(names, ", "), verb)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *ParseError) Unwrap() error { return e.Err }

func syntaxErr(format string, args ...any) error {
	return workload.NewMsgError(fmt.Sprintf(format, args...), ErrSyntax)
}

// parseFio reads a job file (see Parse) with global holding the options before the file's;
// it returns the options as given too.
func parseFio(r io.Reader, name string, global *jobState) ([]workload.Job, *workload.FioGiven, error) {
	p := parser{file: name, main: name, arg: -1, env: os.LookupEnv}
	jobs, err := p.parseFile(r, name, global)
	if err != nil {
		return nil, nil, err
	}
	p.given.Global = global.given
	return jobs, &p.given, nil
}

func (p *parser) parseFile(r io.Reader, name string, global *jobState) ([]workload.Job, error) {
	lx := fio.Lexer{LookupEnv: p.env}
	lc := &lineCounter{r: r}
	var cur *jobState
	inGlobal := false
	for tok, err := range lx.Tokens(lc, name) {
		if err != nil {
			return nil, p.lexError(cur, err)
		}
		p.file, p.line = tok.Pos.File, tok.Pos.Line
		switch tok.Kind {
		case fio.SectionToken:
			if err := p.finish(cur); err != nil {
				return nil, err
			}
			cur = nil
			if strings.HasPrefix(tok.Name, "global") {
				// fio matches the prefix, so [global-x] is global too.
				inGlobal, p.job = true, ""
				continue
			}
			inGlobal = false
			cur = global.clone(p.pos())
			cur.job.Name = tok.Name
			p.job = tok.Name
		case fio.IncludeToken:
			// The included file's options follow, at their own
			// positions; what its options set is recorded there.
		case fio.OptionToken:
			st := cur
			if inGlobal {
				st = global
			}
			p.text = tok.Text
			if len(tok.Unset) > 0 {
				if p.unset == nil {
					p.unset = map[srcPos][]string{}
				}
				p.unset[p.pos()] = tok.Unset
			}
			if st == nil {
				return nil, p.errorf("", syntaxErr("option %q outside a [job] or [global] section", tok.Text))
			}
			if err := p.apply(st, tok.Name, tok.Value, tok.HasValue, inGlobal); err != nil {
				return nil, err
			}
		}
	}
	p.file, p.line = p.main, lc.lines()
	if err := p.finish(cur); err != nil {
		return nil, err
	}
	if len(p.jobs) == 0 {
		return nil, p.errorf("", syntaxErr("no job sections"))
	}
	return p.jobs, nil
}

// lineCounter counts the lines read through it as the lexer splits them,
// so that errors about the whole file name its last line.
type lineCounter struct {
	r        io.Reader
	newlines int
	last     byte // the last byte read
	any      bool
}

func (c *lineCounter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.newlines += bytes.Count(b[:n], []byte{'\n'})
		c.last, c.any = b[n-1], true
	}
	return n, err
}

// lines is the number of lines read: a last line without a newline
// counts.
func (c *lineCounter) lines() int {
	if c.any && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// lexError turns an error of fio's lexer into the parser's: a bad
// section header ends the job before it first, as a good one would.
func (p *parser) lexError(cur *jobState, err error) error {
	var le *fio.JobFileError
	if !errors.As(err, &le) {
		return fmt.Errorf("workload: read %s: %w", p.main, err)
	}
	p.file = le.Pos.File
	switch {
	case le.Kind == nil:
		return fmt.Errorf("workload: read %s: %w", le.Pos.File, le.Err)
	case errors.Is(le, fio.ErrSectionHeader):
		p.line = le.Pos.Line
		if err := p.finish(cur); err != nil {
			return err
		}
	case errors.Is(le, fio.ErrLineTooLong):
		p.line = le.Pos.Line - 1 // reported after the last line read
	default:
		p.line = le.Pos.Line
	}
	return p.errorf("", syntaxErr("%s", le.Msg))
}

// maxLine bounds a job-file line (fio's own limit is 8 KiB).
const maxLine = fio.MaxLineLength

// parseFioArgs reads a command line's jobs (see Parse), returning the
// options as given too.
func parseFioArgs(args []string) ([]workload.Job, *workload.FioGiven, error) {
	p := parser{file: "args", env: os.LookupEnv}
	jobs, err := p.parseArgs(args)
	if err != nil {
		return nil, nil, err
	}
	return jobs, &p.given, nil
}

// argOption reads args[i] as a command-line option, "--key=value",
// "-key=value" or, when wantsValue(key) and it has no "=", "--key value":
// the key, the value and whether there is one, and the index of the last
// argument it read (i+1 when the value is the next one). ok is false when
// args[i] is not an option.
func argOption(args []string, i int, wantsValue func(key string) bool) (key, val string, hasVal bool, last int, ok bool) {
	opt, ok := strings.CutPrefix(args[i], "--")
	if !ok {
		opt, ok = strings.CutPrefix(args[i], "-")
	}
	if !ok || opt == "" {
		return "", "", false, i, false
	}
	key, val, hasVal = strings.Cut(opt, "=")
	key = strings.TrimSpace(key)
	if !hasVal && wantsValue(key) && i+1 < len(args) {
		return key, args[i+1], true, i + 1, true
	}
	return key, val, hasVal, i, true
}

// takesValue reports whether a command-line job option takes its value
// from the next argument when it has none of its own: name (which starts
// a job) and every option that needs a value.
func (p *parser) takesValue(key string) bool {
	return key == "name" || p.needsValue(key)
}

func (p *parser) parseArgs(args []string) ([]workload.Job, error) {
	global := newJobState(srcPos{})
	st := global
	inGlobal := true
	for i := 0; i < len(args); i++ {
		p.arg = i
		key, val, hasVal, last, ok := argOption(args, i, p.takesValue)
		if !ok {
			return nil, p.errorf("", syntaxErr("%q is not an option (a job file goes to Parse as its reader)", args[i]))
		}
		i = last
		val = strings.TrimSpace(val)
		if key == "name" {
			if !hasVal {
				return nil, p.errorf("name", valueErr("needs a value"))
			}
			if val == "" {
				return nil, p.emptyValue("name")
			}
			if !inGlobal {
				if err := p.finish(st); err != nil {
					return nil, err
				}
			}
			if val == "global" {
				st, inGlobal, p.job = global, true, ""
				continue
			}
			st, inGlobal = global.clone(p.pos()), false
			st.job.Name = val
			p.job = val
			st.lines["name"] = p.pos()
			st.given = append(st.given, workload.FioOption{Name: "name", Value: val}) // fio prints a command-line job's name
			continue
		}
		if cliOnly(key) {
			return nil, p.errorf("", workload.NewMsgError("fio command-line option --"+key+" is not a job option; stortest does not take it", workload.ErrUnsupported))
		}
		if err := p.apply(st, key, val, hasVal, inGlobal); err != nil {
			return nil, err
		}
	}
	if !inGlobal {
		if err := p.finish(st); err != nil {
			return nil, err
		}
	}
	if len(p.jobs) == 0 {
		return nil, p.errorf("", syntaxErr("no job: give --name=<job>"))
	}
	p.given.Global = global.given
	return p.jobs, nil
}

// parser holds the position and the jobs parsed so far.
type parser struct {
	main string // the job file given (file is an included one's while it is read)
	file string
	line int // job file line, 1-based
	arg  int // argument index, or -1 for a job file
	job  string
	env  func(string) (string, bool) // ${NAME}'s value, in a job file
	text string                      // the job-file line, as written
	// unset holds, by job-file line, the ${NAME}s on it that are not
	// set (only lines that have any), for the errors at those lines.
	unset  map[srcPos][]string
	jobs   []workload.Job
	clones int             // the jobs' clones so far (fio's count of jobs)
	names  map[string]bool // the jobs' names so far, for wait_for
	// given are the options as given, for fio's "global options" and
	// "job options" (given.Jobs[i] is jobs[i]'s).
	given workload.FioGiven
}

// srcPos is where an option was given: a line of a job file (of the
// included file for an included option), or, with file "", the index of
// a command-line argument.
type srcPos struct {
	file string
	n    int
}

func (p *parser) pos() srcPos {
	if p.arg >= 0 {
		return srcPos{"", p.arg}
	}
	return srcPos{p.file, p.line}
}

func (p *parser) errorAt(pos srcPos, option string, err error) error {
	e := &ParseError{File: pos.file, Line: pos.n, Arg: -1, Job: p.job, Option: option, Err: err}
	if p.arg >= 0 {
		e.File, e.Line, e.Arg = "", 0, pos.n
	} else {
		e.Unset = p.unset[pos]
	}
	return e
}

func (p *parser) errorf(option string, err error) error { return p.errorAt(p.pos(), option, err) }

// needsValue reports whether key is an option that takes a value, so that
// "--key value" takes the next argument.
func (p *parser) needsValue(key string) bool {
	o := lookupOption(key)
	return o != nil && !o.isBool
}

// apply sets one option on st.
func (p *parser) apply(st *jobState, key, val string, hasVal, inGlobal bool) error {
	o := lookupOption(key)
	if o == nil {
		if err := unsupportedFio(key); err != nil {
			return p.errorf("", err)
		}
		msg := fmt.Sprintf("unknown option %q", key)
		if s := suggest(key); s != "" {
			msg += " (did you mean " + s + "?)"
		}
		return p.errorf("", workload.NewMsgError(msg, ErrUnknownOption))
	}
	if !hasVal && o.bare != nil {
		o.bare(st)
		st.lines[o.field] = p.pos()
		return nil
	}
	if !hasVal {
		if !o.isBool {
			return p.errorf(o.name, valueErr("needs a value"))
		}
		val = "1"
	}
	if val == "" && (o.bare == nil || p.arg >= 0) {
		// fio refuses an empty value of every option that cannot be
		// bare (filename= does not mean the default file), and of
		// every option on the command line.
		return p.emptyValue(o.name)
	}
	if o.name == "name" && inGlobal {
		return nil // fio ignores a name in [global]: sections name the jobs
	}
	var err error
	if p.arg < 0 && strings.Contains(val, "$") {
		val, err = replaceKeywords(o.name, val, keywordValues())
	}
	if err == nil {
		err = p.checkDollar(o.name, val)
	}
	if err == nil && strings.HasPrefix(val, "(") {
		err = workload.Unsupported("the arithmetic expression " + strconv.Quote(val))
	}
	if err == nil {
		err = o.set(st, val)
	}
	if err != nil {
		if !workload.Classified(err) {
			err = workload.Invalid(err)
		}
		return p.errorf(o.name, err)
	}
	st.lines[o.field] = p.pos()
	st.addGiven(o.name, val, hasVal)
	return nil
}

// emptyValue is the error of an empty value of option name, in fio's
// words.
func (p *parser) emptyValue(name string) error {
	if p.arg >= 0 {
		return p.errorf(name, valueErr(fmt.Sprintf("requires an argument (fio: \"option %s requires an argument\")", name)))
	}
	return p.errorf(name, valueErr(fmt.Sprintf("an empty value, which fio refuses (\"failed parsing %s\")", p.text)))
}

// finish validates and records the job of st (nil: nothing to finish).
func (p *parser) finish(st *jobState) error {
	if st == nil {
		return nil
	}
	if err := p.finishMore(st); err != nil {
		return err
	}
	if err := p.finishBlockSizes(st); err != nil {
		return err
	}
	j := st.job
	if st.batchZero {
		j.IODepthBatch = max(j.IODepth, 1) // fio: iodepth_batch=0 means iodepth
	}
	if st.mixZero && j.RW.Mixed() {
		return p.errorAt(st.at("rwmixread"), "rwmixread",
			valueErr("0% reads leaves rw="+j.RW.String()+" without reads: use rw=write or rw=randwrite"))
	}
	for i, p := range []*string{&j.Logs.Lat, &j.Logs.BW, &j.Logs.IOPS, &j.WriteHistLog} {
		if st.logByName[i] && *p == "" {
			*p = j.Name
		}
	}
	if st.lfsr && j.NoRandomMap && j.MinBlockSize() == j.MaxBlockSize() {
		// fio's lfsr never draws an offset twice in a pass, map or
		// not; stortest's random map is a permutation of the blocks
		// (no memory either) and does the same for one block size.
		j.NoRandomMap = false
	}
	j = j.Normalized()
	if p.clones += max(j.NumJobs, 1); p.clones > workload.MaxJobs {
		// fio stops here too, before it opens any file.
		opt := ""
		if _, ok := st.lines["numjobs"]; ok {
			opt = "numjobs"
		}
		return p.errorAt(st.at("numjobs"), opt, workload.TooManyJobs(p.clones))
	}
	if err := validate.Job(&j); err != nil {
		var fe *workload.FieldError
		if errors.As(err, &fe) {
			return p.errorAt(st.at(fe.Field), fe.Field, err)
		}
		return p.errorAt(st.section, "", err)
	}
	p.jobs = append(p.jobs, j)
	p.given.Jobs = append(p.given.Jobs, st.given)
	if p.names == nil {
		p.names = map[string]bool{}
	}
	p.names[j.Name] = true
	return nil
}

// jobState is a job (or the global options) being parsed.
type jobState struct {
	job       workload.Job
	section   srcPos            // line or argument of the section start
	lines     map[string]srcPos // Job field's option name -> line/argument that set it
	batchZero bool              // iodepth_batch=0: resolved to iodepth at the end
	mixZero   bool              // rwmixread=0 (or rwmixwrite=100)
	lfsr      bool              // random_generator=lfsr
	// logByName: write_lat_log, write_bw_log, write_iops_log and
	// write_hist_log given bare, a log named after the job (fio's
	// default), resolved at its end.
	logByName [4]bool
	// dirBlocks is the last of bs, bsrange and bssplit when its
	// directions differ, resolved at the job's end (finishBlockSizes).
	dirBlocks *dirBlocks
	// given are the options given in this section (or in [global] and
	// on the command line), as fio prints them (addGiven).
	given []workload.FioOption
}

func newJobState(section srcPos) *jobState {
	return &jobState{section: section, lines: map[string]srcPos{}}
}

// clone copies the global options into a new job starting at section.
func (s *jobState) clone(section srcPos) *jobState {
	c := *s
	c.section = section
	c.given = nil // a job prints only its own section's options
	c.lines = make(map[string]srcPos, len(s.lines))
	for k, v := range s.lines {
		c.lines[k] = v
	}
	c.job.BlockSizeSplit = slices.Clone(s.job.BlockSizeSplit)
	c.job.PercentileList = slices.Clone(s.job.PercentileList)
	if s.job.RandRepeat != nil {
		c.job.RandRepeat = workload.Bool(*s.job.RandRepeat)
	}
	return &c
}

// at returns where field was set, else the section start.
func (s *jobState) at(field string) srcPos {
	if l, ok := s.lines[field]; ok {
		return l
	}
	return s.section
}

// fioOption is one accepted option.
type fioOption struct {
	name    string   // fio's name
	aliases []string // fio's other names
	field   string   // the option name validate.Job reports for the Job field it sets
	isBool  bool     // may appear bare, meaning 1
	// bare, when set, is what the option means without a value (the
	// log options: a log named after the job).
	bare func(st *jobState)
	set  func(st *jobState, v string) error
	doc  string // Job field and notes, for the table in doc.go
}

func valueErr(msg string) error { return workload.Invalid(errors.New(msg)) }

func setString(f func(*workload.Job) *string) func(*jobState, string) error {
	return func(st *jobState, v string) error { *f(&st.job) = v; return nil }
}

func setBool(f func(*workload.Job) *bool) func(*jobState, string) error {
	return func(st *jobState, v string) error {
		b, err := ParseBool(v)
		*f(&st.job) = b
		return err
	}
}

func setSize(f func(*workload.Job) *int64) func(*jobState, string) error {
	return func(st *jobState, v string) error {
		n, err := ParseSize(v)
		*f(&st.job) = n
		return err
	}
}

func setInt(lo, hi int64, f func(*workload.Job) *int) func(*jobState, string) error {
	return func(st *jobState, v string) error {
		n, err := ParseCount(v, hi)
		if err != nil {
			return err
		}
		if n < lo {
			return fmt.Errorf("%d is less than %d", n, lo)
		}
		*f(&st.job) = int(n)
		return nil
	}
}

func setTime(f func(*workload.Job) *time.Duration) func(*jobState, string) error {
	return func(st *jobState, v string) error {
		d, err := ParseTime(v, time.Second)
		*f(&st.job) = d
		return err
	}
}

// parseTriple parses fio's per-direction list "r[,w[,t]]": a value not
// followed by a comma applies to the directions after it ("5" is 5,5,5;
// ",5" is 0,5,5; "5," is 5,0,0); an empty value is 0.
func parseTriple(v string, parse func(string) (int64, error)) ([3]int64, error) {
	var out [3]int64
	parts := strings.Split(v, ",")
	if len(parts) > 3 {
		return out, fmt.Errorf("%q has more than 3 values (read,write,trim)", v)
	}
	for i, s := range parts {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := parse(s)
		if err != nil {
			return out, err
		}
		out[i] = n
	}
	if last := parts[len(parts)-1]; strings.TrimSpace(last) != "" {
		for i := len(parts); i < 3; i++ {
			out[i] = out[len(parts)-1]
		}
	}
	return out, nil
}

// oneForAllDirections reads fio's per-direction form of a block size
// option ("read,write,trim"): the same value for every direction given
// ("8k,8k,8k") is that value; different ones are not supported.
func oneForAllDirections(name, v string) (string, error) {
	parts := strings.Split(v, ",")
	for _, p := range parts[1:] {
		if strings.TrimSpace(p) != strings.TrimSpace(parts[0]) {
			return "", workload.Unsupported(name + "=" + v + ": per-direction block sizes")
		}
	}
	return strings.TrimSpace(parts[0]), nil
}

// parseSplit parses bssplit entries size/percent separated by ':'. Blank
// percentages share what the others leave of 100 evenly; when that does
// not divide, the first blanks get one more (fio truncates and lets the
// total fall short).
func parseSplit(v string) ([]workload.BlockSizeSplit, error) {
	entries := strings.Split(v, ":")
	if len(entries) > workload.MaxSplits {
		return nil, fmt.Errorf("%d entries (at most %d)", len(entries), workload.MaxSplits)
	}
	split := make([]workload.BlockSizeSplit, len(entries))
	sum, blanks := 0, 0
	for i, e := range entries {
		size, perc, hasPerc := strings.Cut(e, "/")
		n, err := parseBlockSize(strings.TrimSpace(size))
		if err != nil {
			return nil, err
		}
		split[i].Size = n
		if perc = strings.TrimSpace(perc); !hasPerc || perc == "" {
			split[i].Percent = -1
			blanks++
			continue
		}
		p, err := strconv.Atoi(perc)
		if err != nil || p < 0 || p > 100 {
			return nil, fmt.Errorf("%q is not a percentage", perc)
		}
		split[i].Percent = p
		sum += p
	}
	if sum > 100 {
		return nil, fmt.Errorf("percentages add up to %d, more than 100", sum)
	}
	if blanks > 0 {
		share, extra := (100-sum)/blanks, (100-sum)%blanks
		for i := range split {
			if split[i].Percent == -1 {
				split[i].Percent = share
				if extra > 0 {
					split[i].Percent++
					extra--
				}
			}
		}
	}
	return split, nil
}

// parseBlockSize parses a block size, which must not be 0 (the zero
// value of the Job fields means "default").
// lenientBlockSize reads a block size as fio does, ignoring what follows
// the number and its suffix (t/jobs/t0023.fio's bsrange=512/25:1k:...
// is 512-1k to fio); what it ignores becomes a notice of the job.
func (st *jobState) lenientBlockSize(option, whole, v string) (int64, error) {
	n, rest, err := fio.ParseSizePrefix(v)
	if err != nil {
		return parseBlockSize(v)
	}
	if n == 0 {
		return parseBlockSize("0")
	}
	if rest != "" {
		st.job.Notes = append(st.job.Notes, fmt.Sprintf("%s=%s: %q read as %s, as fio reads it (%q ignored)", option, whole, v, workload.FormatSize(n), rest))
	}
	return n, nil
}

func parseBlockSize(v string) (int64, error) {
	n, err := ParseSize(v)
	if err == nil && n == 0 {
		err = errors.New("a block size of 0")
	}
	return n, err
}

var optionIndex = func() map[string]*fioOption {
	m := map[string]*fioOption{}
	for _, table := range [][]fioOption{optionTable} {
		for i := range table {
			o := &table[i]
			m[o.name] = o
			for _, a := range o.aliases {
				m[a] = o
			}
		}
	}
	return m
}()

func lookupOption(key string) *fioOption { return optionIndex[key] }

// FioOptions returns the names (and aliases) of the fio options Parse
// accepts, sorted.
func FioOptions() []string {
	var names []string
	for k := range optionIndex {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// cliOnly reports whether key is one of fio's command-line options that
// is not a job option too ("profile" is both).
func cliOnly(key string) bool { return fio.IsCommandLineOption(key) && !fio.IsOption(key) }

// suggest returns the accepted option closest to key (edit distance at
// most 2), or "".
func suggest(key string) string {
	best, bestD := "", 3
	for _, name := range FioOptions() {
		if d := editDistance(key, name, bestD); d < bestD {
			best, bestD = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, or limit when it is
// at least limit.
func editDistance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 || abs(len(a)-len(b)) >= limit {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// checkDollar rejects a '$' in the value of option name left after ${VAR}
// expansion and fio's $keywords (replaceKeywords): a keyword on the command
// line, where fio does not replace it, and anything else, a variable fio
// would not expand. On the command line fio expands no
// ${VAR} at all (the shell does): it takes the text as it is.
func (p *parser) checkDollar(name, v string) error {
	if !strings.Contains(v, "$") {
		return nil
	}
	for _, k := range fio.Keywords {
		if strings.Contains(v, k) { // on the command line: job files have them replaced
			return valueErr(fmt.Sprintf("%q: fio replaces its keyword %s in job files only, and fails parsing %s=%s on the command line", v, k, name, v))
		}
	}
	if name == "filename_format" {
		return nil // its own $keywords: Job.FilenameFormat
	}
	if i := strings.Index(v, "${"); p.arg >= 0 && i >= 0 && strings.Contains(v[i:], "}") {
		return valueErr(fmt.Sprintf("%q: fio expands no ${NAME} on the command line but takes the text as it is (%s=%s): let the shell expand it", v, name, v))
	}
	return valueErr(fmt.Sprintf("%q: '$' is not expanded; fio expands ${NAME} only", v))
}

// addGiven records an option that was set, as fio prints it.
func (s *jobState) addGiven(name, val string, hasVal bool) {
	if !hasVal {
		return
	}
	s.given = append(s.given, workload.FioOption{Name: name, Value: val})
}
