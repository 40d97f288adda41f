package workload

import (
	"strconv"

	"stortest.dev/internal/enum"
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

func (k FileServiceKind) String() string { return enum.Name(serviceNames[:], k, "FileServiceKind") }

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
