package standin

// The types below are the stand-in's state. They are shaped after the
// Audiobookshelf 2.36 database models (server/models/*.js) rather than after
// the JSON the API sends: the JSON is rendered from them by render.go, the way
// the upstream models render themselves with toOldJSON* methods.
//
// Conventions, so that seeding a test is short:
//   - Timestamps are milliseconds since the Unix epoch (what the API sends);
//     0 means null where the upstream column is nullable.
//   - An empty string is rendered as null for nullable string columns
//     (subtitle, isbn, asin, publisher, ...).
//   - Integer columns that upstream may leave null (track/disc numbers) are
//     rendered as null when 0.

// Data is the whole state of a stand-in server.
type Data struct {
	Libraries   []Library
	Authors     []Author
	Series      []Series
	Items       []LibraryItem
	Collections []Collection
	Playlists   []Playlist
	// Users[0] is the user the Options.APIKey authenticates; any user with a
	// non-empty APIKey is authenticated by that key as well.
	Users []User
	// Sessions are playback (listening) sessions, server/models/PlaybackSession.js.
	Sessions []Session
	// Podcasts is the world outside the library the podcasts routes reach
	// (feeds, iTunes search), h_podcasts.go.
	Podcasts PodcastWorld
}

// Library mirrors server/models/Library.js.
type Library struct {
	ID              string
	Name            string
	MediaType       string // "book" or "podcast"
	Icon            string
	Provider        string
	DisplayOrder    int
	Folders         []Folder
	Settings        LibrarySettings
	LastScan        int64
	LastScanVersion string
	CreatedAt       int64
	UpdatedAt       int64
}

// Folder mirrors server/models/LibraryFolder.js.
type Folder struct {
	ID       string
	FullPath string
	AddedAt  int64
}

// LibrarySettings mirrors Library.getDefaultLibrarySettingsForMediaType; which
// keys are rendered depends on the library's media type.
type LibrarySettings struct {
	CoverAspectRatio                   int
	DisableWatcher                     bool
	AutoScanCronExpression             string
	SkipMatchingMediaWithASIN          bool
	SkipMatchingMediaWithISBN          bool
	AudiobooksOnly                     bool
	EpubsAllowScriptedContent          bool
	HideSingleBookSeries               bool
	OnlyShowLaterBooksInContinueSeries bool
	MetadataPrecedence                 []string
	PodcastSearchRegion                string
	MarkAsFinishedPercentComplete      float64 // 0 = null
	MarkAsFinishedTimeRemaining        float64
}

// Author mirrors server/models/Author.js (authors belong to one library).
type Author struct {
	ID          string
	LibraryID   string
	Name        string
	Description string
	ASIN        string
	ImagePath   string
	AddedAt     int64
	UpdatedAt   int64
}

// Series mirrors server/models/Series.js.
type Series struct {
	ID          string
	LibraryID   string
	Name        string
	Description string
	AddedAt     int64
	UpdatedAt   int64
}

// LibraryItem mirrors server/models/LibraryItem.js. Exactly one of Book and
// Podcast is set, according to MediaType.
type LibraryItem struct {
	ID           string
	Ino          string
	LibraryID    string
	FolderID     string
	Path         string
	RelPath      string
	IsFile       bool
	IsMissing    bool
	IsInvalid    bool
	MtimeMs      int64
	CtimeMs      int64
	BirthtimeMs  int64
	AddedAt      int64 // createdAt
	UpdatedAt    int64
	LastScan     int64
	ScanVersion  string
	Size         int64 // libraryItems.size: all files of the item
	MediaType    string
	Book         *Book
	Podcast      *Podcast
	LibraryFiles []LibraryFile
}

// Book mirrors server/models/Book.js with its bookAuthors and bookSeries rows
// folded in (AuthorIDs and Series keep the rows' creation order).
type Book struct {
	ID            string
	Title         string
	Subtitle      string
	AuthorIDs     []string
	Series        []SeriesSequence
	Narrators     []string
	Genres        []string
	Tags          []string
	PublishedYear string
	PublishedDate string
	Publisher     string
	Description   string
	ISBN          string
	ASIN          string
	Language      string
	Explicit      bool
	Abridged      bool
	CoverPath     string
	// CoverAspect is the cover image's height over its width (what
	// GET /api/items/:id/cover keeps when it scales the image to a width);
	// 0 is 1.5, a 2:3 jacket.
	CoverAspect float64
	Duration    float64
	AudioFiles  []AudioFile
	Chapters    []Chapter
	EbookFile   *EbookFile
	CreatedAt   int64
	UpdatedAt   int64
}

// SeriesSequence is one bookSeries row: the book's place in a series.
type SeriesSequence struct {
	SeriesID string
	Sequence string // "" = null
}

// EbookFile mirrors Book.ebookFile.
type EbookFile struct {
	Ino         string
	EbookFormat string
	Metadata    FileMetadata
	AddedAt     int64
	UpdatedAt   int64
}

// Chapter mirrors the ChapterObject typedef in server/models/Book.js.
type Chapter struct {
	ID    int
	Start float64
	End   float64
	Title string
}

// FileMetadata mirrors server/objects/metadata/FileMetadata.js.
type FileMetadata struct {
	Filename    string
	Ext         string
	Path        string
	RelPath     string
	Size        int64
	MtimeMs     int64
	CtimeMs     int64
	BirthtimeMs int64
}

// AudioFile mirrors server/objects/files/AudioFile.js (toJSON). MetaTags keys
// are the AudioMetaTags field names (tagAlbum, tagArtist, ...); they are
// rendered in the upstream field order.
type AudioFile struct {
	Index                int
	Ino                  string
	Metadata             FileMetadata
	AddedAt              int64
	UpdatedAt            int64
	TrackNumFromMeta     int
	DiscNumFromMeta      int
	TrackNumFromFilename int
	DiscNumFromFilename  int
	ManuallyVerified     bool
	Exclude              bool
	Error                string
	Format               string
	Duration             float64
	BitRate              int
	Language             string
	Codec                string
	TimeBase             string
	Channels             int
	ChannelLayout        string
	Chapters             []Chapter
	EmbeddedCoverArt     string
	MetaTags             map[string]string
	MimeType             string
}

// LibraryFile mirrors server/objects/files/LibraryFile.js.
type LibraryFile struct {
	Ino             string
	Metadata        FileMetadata
	IsSupplementary *bool
	AddedAt         int64
	UpdatedAt       int64
	FileType        string // audio, image, ebook, text, metadata, unknown
}

// Podcast mirrors server/models/Podcast.js with its episodes.
type Podcast struct {
	ID                       string
	Title                    string
	Author                   string
	Description              string
	ReleaseDate              string
	FeedURL                  string
	ImageURL                 string
	ITunesPageURL            string
	ITunesID                 string
	ITunesArtistID           string
	Language                 string
	Type                     string // podcastType: episodic, serial
	Explicit                 bool
	Genres                   []string
	Tags                     []string
	CoverPath                string
	AutoDownloadEpisodes     bool
	AutoDownloadSchedule     string
	LastEpisodeCheck         int64
	MaxEpisodesToKeep        int
	MaxNewEpisodesToDownload int
	Episodes                 []Episode
	CreatedAt                int64
	UpdatedAt                int64
}

// Episode mirrors server/models/PodcastEpisode.js.
type Episode struct {
	ID            string
	Index         int
	Season        string
	Episode       string
	EpisodeType   string
	Title         string
	Subtitle      string
	Description   string
	PubDate       string
	EnclosureURL  string
	EnclosureType string
	EnclosureSize int64
	GUID          string
	PublishedAt   int64
	AudioFile     AudioFile
	Chapters      []Chapter
	AddedAt       int64
	UpdatedAt     int64
}

// Collection mirrors server/models/Collection.js; Books are library item ids
// in collection order (collectionBooks.order 1..n).
type Collection struct {
	ID          string
	LibraryID   string
	Name        string
	Description *string
	Books       []string
	LastUpdate  int64
	CreatedAt   int64
}

// Playlist mirrors server/models/Playlist.js; Items are in order.
type Playlist struct {
	ID          string
	LibraryID   string
	UserID      string
	Name        string
	Description *string
	Items       []PlaylistItem
	LastUpdate  int64
	CreatedAt   int64
}

// PlaylistItem is one playlistMediaItem: a book (EpisodeID "") or an episode.
type PlaylistItem struct {
	LibraryItemID string
	EpisodeID     string
}

// User mirrors server/models/User.js, with the user's media progress and
// bookmarks.
type User struct {
	ID       string
	Username string
	Email    string
	Type     string // root, admin, user, guest
	// Token is the legacy user token that GET /api/me exposes (field "token").
	Token string
	// APIKey is the bearer token that authenticates this user. Users[0] is
	// also authenticated by Options.APIKey.
	APIKey                          string
	IsActive                        bool
	IsLocked                        bool
	LastSeen                        int64
	CreatedAt                       int64
	Permissions                     Permissions
	SeriesHideFromContinueListening []string
	MediaProgress                   []MediaProgress
	Bookmarks                       []Bookmark
}

// Permissions mirrors User.permissions (getDefaultPermissionsForUserType).
type Permissions struct {
	Download                  bool
	Update                    bool
	Delete                    bool
	Upload                    bool
	CreateEreader             bool
	AccessAllLibraries        bool
	AccessAllTags             bool
	AccessExplicitContent     bool
	SelectedTagsNotAccessible bool
	LibrariesAccessible       []string
	ItemTagsSelected          []string
}

// MediaProgress mirrors server/models/MediaProgress.js (getOldMediaProgress).
type MediaProgress struct {
	ID            string
	LibraryItemID string // extraData.libraryItemId, as sent in the URL
	EpisodeID     string // "" for a book
	MediaItemID   string // book id or episode id
	MediaItemType string // "book" or "podcastEpisode"
	PodcastID     string
	Duration      float64
	Progress      float64 // extraData.progress
	CurrentTime   float64
	IsFinished    bool
	// HideFromContinueListening hides the item from the continue-listening shelf.
	HideFromContinueListening bool
	EbookLocation             *string
	EbookProgress             float64
	LastUpdate                int64 // updatedAt
	StartedAt                 int64 // createdAt
	FinishedAt                int64 // 0 = null
}

// Bookmark mirrors the AudioBookmarkObject in server/models/User.js. Time is
// whatever JSON value the client sent (float64 normally; a string when the
// client sent "7.5" — the measured trap).
type Bookmark struct {
	LibraryItemID string
	Time          any
	Title         string
	CreatedAt     int64
}

// Session mirrors a playback session (server/objects/PlaybackSession.js).
type Session struct {
	ID            string
	UserID        string
	LibraryID     string
	LibraryItemID string
	EpisodeID     string // "" for a book session
	MediaType     string // "book" or "podcast"
	// MediaMetadata is the JSON snapshot of the media metadata taken when the
	// session started; nil renders the item's current metadata.
	MediaMetadata []byte
	DisplayTitle  string
	DisplayAuthor string
	CoverPath     string
	Duration      float64
	PlayMethod    int
	MediaPlayer   string
	DeviceInfo    *DeviceInfo
	ServerVersion string
	Date          string // YYYY-MM-DD
	DayOfWeek     string // Monday ...
	TimeListening float64
	StartTime     float64
	CurrentTime   float64
	StartedAt     int64
	UpdatedAt     int64
}

// DeviceInfo mirrors server/objects/DeviceInfo.js; empty fields are omitted.
type DeviceInfo struct {
	ID             string
	UserID         string
	DeviceID       string
	IPAddress      string
	BrowserName    string
	BrowserVersion string
	OSName         string
	OSVersion      string
	DeviceType     string
	ClientVersion  string
	Manufacturer   string
	Model          string
	SDKVersion     int
	ClientName     string
	DeviceName     string
}
