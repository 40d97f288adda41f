package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// MultiFile are fio's options of a job of several files: nrfiles
// (NoDataEngines.NrFiles) above 1 with an engine that moves data. Each
// clone then has NrFiles files, named as fio names them (FileName: its
// default jobname.clone.filenum, or filename_format), each with its own
// region and its own offsets (a sequential position per direction, a
// random map); FileService picks the file of each I/O. Job embeds it,
// so the fields read as Job's.
type MultiFile struct {
	// FileService is fio's file_service_type.
	FileService FileService `json:"file_service_type,omitzero"`
	// OpenFiles is fio's openfiles: the most files open at once (0
	// means all of them). Fewer than the files change the order they
	// are served in, as in fio: a file not open is picked only once an
	// open one is done (a pick of it fails and is made again); stortest
	// holds every file open all the same.
	OpenFiles int `json:"openfiles,omitempty"`
}

// FileServiceKind is how a job of several files picks the file of the
// next I/O (fio's file_service_type).
type FileServiceKind uint8

const (
	ServiceRoundRobin FileServiceKind = iota // each file in turn (fio's default)
	ServiceSequential                        // a file until it is done, then the next
	ServiceRandom                            // a file drawn uniformly
	ServiceZipf                              // a file drawn from a Zipf distribution, file 0 hottest
	ServicePareto                            // the same, Pareto
	ServiceNormal                            // the same, Gaussian (fio's "normal" or "gauss")
)

var serviceNames = [...]string{"roundrobin", "sequential", "random", "zipf", "pareto", "normal"}

func (k FileServiceKind) String() string {
	if int(k) < len(serviceNames) {
		return serviceNames[k]
	}
	return "FileServiceKind(" + strconv.Itoa(int(k)) + ")"
}

// NonUniform reports whether the kind draws from a distribution: fio
// never counts such a job's files done, it starts a file over where its
// offsets run out.
func (k FileServiceKind) NonUniform() bool { return k >= ServiceZipf }

// FileService is fio's file_service_type:
//
//	roundrobin[:N]   each file in turn, N I/Os at a time (default, N 1)
//	sequential       a file until its region is done, then the next
//	random[:N]       a file drawn uniformly, N I/Os at a time
//	zipf[:theta]     a file drawn from Zipf(theta) (default 1.1), file 0 hottest
//	pareto[:h]       Pareto(h), 0 < h < 1 (default 0.2)
//	normal[:dev]     Gaussian with deviation dev percent (0 <= dev < 100,
//	                 default 0), "gauss" the same
//
// zipf, pareto and normal take an optional center after their parameter
// (":c", 0 <= c <= 1), as random_distribution does. The zero value is
// roundrobin.
type FileService struct {
	Kind FileServiceKind
	// Nr is roundrobin's, sequential's and random's N: the I/Os a file
	// gets before the next is picked (0 means 1).
	Nr int
	// Param is zipf's theta, pareto's h or normal's deviation; 0 means
	// fio's default.
	Param     float64
	Center    float64
	HasCenter bool
}

// ParseFileService parses fio's file_service_type.
func ParseFileService(s string) (FileService, error) {
	name, rest, hasRest := strings.Cut(s, ":")
	var fs FileService
	switch name {
	case "roundrobin":
		fs.Kind = ServiceRoundRobin
	case "sequential":
		fs.Kind = ServiceSequential
	case "random":
		fs.Kind = ServiceRandom
	case "zipf":
		fs.Kind = ServiceZipf
	case "pareto":
		fs.Kind = ServicePareto
	case "normal", "gauss":
		fs.Kind = ServiceNormal
	default:
		return fs, fmt.Errorf("unknown file_service_type %q (want random, roundrobin, sequential, zipf, pareto, normal or gauss)", name)
	}
	if !hasRest {
		return fs, nil
	}
	if !fs.Kind.NonUniform() {
		// fio takes atoi of the postfix: leading digits, else 0 (then
		// 1 I/O a file).
		n := 0
		for _, c := range rest {
			if c < '0' || c > '9' || n > 1<<24 {
				break
			}
			n = n*10 + int(c-'0')
		}
		fs.Nr = n
		return fs, nil
	}
	p, c, hasC := strings.Cut(rest, ":")
	v, err := strconv.ParseFloat(p, 64)
	if err != nil {
		return fs, fmt.Errorf("file_service_type %q: parameter %q is not a number", s, p)
	}
	fs.Param = v
	if hasC {
		cv, err := strconv.ParseFloat(c, 64)
		if err != nil || cv < 0 || cv > 1 {
			return fs, fmt.Errorf("file_service_type %q: center %q is not a number from 0 to 1", s, c)
		}
		fs.Center, fs.HasCenter = cv, true
	}
	if msg := fs.validate(); msg != "" {
		return fs, fmt.Errorf("file_service_type %q: %s", s, msg)
	}
	return fs, nil
}

// validate returns why fs is not one fio takes, or "".
func (fs FileService) validate() string {
	switch {
	case fs.Kind > ServiceNormal:
		return "unknown kind " + fs.Kind.String()
	case fs.Nr < 0:
		return "negative N"
	case fs.Kind == ServiceZipf && fs.Param != 0 && (fs.Param <= 0 || fs.Param == 1):
		return "zipf's theta must be above 0 and not 1"
	case fs.Kind == ServicePareto && fs.Param != 0 && (fs.Param <= 0 || fs.Param >= 1):
		return "pareto's h must be between 0 and 1"
	case fs.Kind == ServiceNormal && (fs.Param < 0 || fs.Param >= 100):
		return "normal's deviation must be from 0 to below 100"
	case fs.HasCenter && (fs.Center < 0 || fs.Center > 1):
		return "the center must be from 0 to 1"
	case !fs.Kind.NonUniform() && (fs.Param != 0 || fs.HasCenter):
		return fs.Kind.String() + " takes no distribution parameter"
	}
	return ""
}

// PerSwitch returns the I/Os a file gets before the next is picked.
func (fs FileService) PerSwitch() int { return max(fs.Nr, 1) }

// Value returns fs.Param, or fio's default for the kind.
func (fs FileService) Value() float64 {
	switch {
	case fs.Param != 0:
		return fs.Param
	case fs.Kind == ServiceZipf:
		return 1.1
	case fs.Kind == ServicePareto:
		return 0.2
	}
	return 0
}

func (fs FileService) String() string {
	s := fs.Kind.String()
	switch {
	case !fs.Kind.NonUniform() && fs.Nr > 1:
		s += ":" + strconv.Itoa(fs.Nr)
	case fs.Kind.NonUniform() && (fs.Param != 0 || fs.HasCenter):
		s += ":" + strconv.FormatFloat(fs.Value(), 'g', -1, 64)
		if fs.HasCenter {
			s += ":" + strconv.FormatFloat(fs.Center, 'g', -1, 64)
		}
	}
	return s
}

// dataEngines take nrfiles above 1 (besides the file engines): their
// units name their file.
var dataEngines = []string{"sync", "psync", "pvsync2", "libaio", "io_uring", "posixaio", "null"}

// DataFiles returns the files of each clone of a job whose engine moves
// data: NrFiles (0 means 1), or 1 when the job names its file, as fio
// takes no more files than names given.
func (j *Job) DataFiles() int {
	if j.Filename != "" {
		return 1
	}
	return j.NumFiles()
}

// MultiFiles reports whether each clone of the job moves data over
// several files.
func (j *Job) MultiFiles() bool { return !IsFileEngine(j.Engine) && j.DataFiles() > 1 }

// FileSizes returns the bytes of each file's region of a job of several
// files (past Offset), as fio 3.33 sizes them: FileSize each, else Size
// split evenly, the whole smallest blocks left over going one each to
// the first files.
func (j *Job) FileSizes() []int64 {
	n := j.DataFiles()
	if len(j.FileSizesDrawn) == n {
		return append([]int64(nil), j.FileSizesDrawn...)
	}
	sizes := make([]int64, n)
	if j.FileSize > 0 { // a range not drawn yet: its lowest
		for i := range sizes {
			sizes[i] = j.FileSize
		}
		return sizes
	}
	fs := j.Size / int64(n)
	extra := int64(0)
	if bs := j.MinBlockSize(); bs > 0 {
		extra = (j.Size - fs*int64(n)) / bs
	}
	for i := range sizes {
		sizes[i] = fs
		if extra > 0 {
			sizes[i] += j.MinBlockSize()
			extra--
		}
	}
	return sizes
}

// TotalSize returns the bytes a loop of a job of several files moves:
// Size, at most the files' regions together (fio lowers size to them).
func (j *Job) TotalSize() int64 {
	var sum int64
	for _, s := range j.FileSizes() {
		sum += s
	}
	if j.Size > 0 && j.Size < sum {
		return j.Size
	}
	return sum
}

// validateMultiFile checks MultiFile's fields and what a job of several
// files cannot combine with.
func (j *Job) validateMultiFile() error {
	bad := func(field, format string, args ...any) error {
		return &FieldError{Job: j.Name, Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	if msg := j.FileService.validate(); msg != "" {
		return bad("file_service_type", "%s", msg)
	}
	if j.OpenFiles < 0 {
		return bad("openfiles", "negative (%d)", j.OpenFiles)
	}
	if !j.MultiFiles() {
		if j.FileSizeMax != 0 {
			return unsupportedField(j.Name, "filesize", "filesize="+FormatSize(j.FileSize)+"-"+FormatSize(j.FileSizeMax)+": a range of file sizes for one file")
		}
		return nil
	}
	un := func(field, what string) error {
		return unsupportedField(j.Name, field, what+" with nrfiles="+strconv.Itoa(j.NrFiles))
	}
	switch {
	case !contains(dataEngines, j.Engine):
		return unsupportedField(j.Name, "nrfiles", "nrfiles="+strconv.Itoa(j.NrFiles)+" with ioengine="+j.Engine+
			" (several files per job with ioengine "+OrList(append(append([]string{}, dataEngines...), FileEngines...))+")")
	case j.Verify != VerifyNone:
		return un("verify", "verify")
	case j.RW.Trims():
		return un("rw", "rw="+j.RW.String())
	case j.RWModifier != 0:
		return un("rw", "an offset modifier (rw=...:N)")
	case j.PercentSequential != [3]int64{}:
		return un("percentage_random", "percentage_random")
	case j.Strided():
		return un("zonemode", "zonemode=strided")
	case j.ReadIOLog != "":
		return un("read_iolog", "read_iolog")
	case j.FileAppend:
		return un("file_append", "file_append")
	case j.FillDevice:
		return un("fill_device", "fill_device")
	case j.SizePercent != 0:
		return un("size", "size=N%")
	case j.OffsetPercent != 0:
		return un("offset", "offset=N%")
	case j.SyncFileRange.Every > 0:
		return un("sync_file_range", "sync_file_range")
	case j.CreateOnOpen:
		return un("create_on_open", "create_on_open")
	case j.FileSizeMax > 0 && (j.FileSize < j.MinBlockSize() || j.OffsetIncrement != 0 || j.Offset != 0):
		return un("filesize", "filesize="+FormatSize(j.FileSize)+"-"+FormatSize(j.FileSizeMax)+" from below a block, or with offset")
	case j.Size == 0 && j.FileSize == 0:
		return bad("nrfiles", "a job of %d files needs size or filesize (fio: \"you need to specify size=\")", j.NrFiles)
	}
	for i, s := range j.FileSizes() {
		if s < j.MinBlockSize() {
			return bad("nrfiles", "file %d of %d gets %s, less than a block (%s)", i, j.NrFiles, FormatSize(s), FormatSize(j.MinBlockSize()))
		}
	}
	return nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
