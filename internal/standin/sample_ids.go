package standin

// Well-known ids of the sample library (SampleData). They are fixed: every
// call of SampleData uses the same ids, so tests can name them.
const (
	LibraryBooksID               = "d7e30ecb-fe00-44a6-91d2-23bc989c0628"
	LibraryPodcastsID            = "20a830f0-5411-436e-8c20-a05b2cf24f32"
	UserRootID                   = "8ccef7cc-04fb-4142-89eb-2e429fc820d8"
	UserListenerID               = "d44f6abd-0fb3-4a42-9b26-f48f7767a83f"
	UserPartnerID                = "f99af7c6-d02c-4cce-93a4-21af2739c035"
	ItemColourOfMagic            = "b8b91c63-fe01-4a4f-a27b-6f52646422df"
	ItemLightFantastic           = "00de43b5-68da-48f5-be8e-959b9d81fb4a"
	ItemEqualRites               = "b23c754e-3264-4d9a-9484-7ed2daef8dcf"
	ItemMort                     = "4b0946b6-bd96-4162-8763-923d1bb77c39"
	ItemSourcery                 = "2da694df-ad5d-4ade-9a2f-f0b22052b0c4"
	ItemWyrdSisters              = "c3aeeab9-15ff-4e7f-b0f0-34b42feb59a5"
	ItemGoodOmens                = "6aaff7b4-4e76-4cfd-b1e2-dd174b2a9125"
	ItemLeviathanWakes           = "4a093bf6-e65a-4b62-84e5-978ce849a847"
	ItemCalibansWar              = "ba9e3b9e-581b-4e6b-b2d8-3fda93169ad2"
	ItemAbaddonsGate             = "260ed17f-e992-498b-91c9-d5843c64247f"
	ItemWizardOfEarthsea         = "bdc6acf3-5cf5-4974-8326-a90e2855161f"
	ItemTombsOfAtuan             = "19f17271-2286-46ff-82f6-1bea43968649"
	ItemProjectHailMary          = "f70c453e-a90a-45a5-9aaa-76ca4bd8146e"
	ItemNeverwhere               = "75d6c1d2-fc77-41d6-98e0-ea766d0c62b6"
	ItemDerProcess               = "8a1e6869-9c4a-4ee8-91ef-0441278e9781"
	ItemHostile                  = "1d75b7fb-6624-4bea-b346-fd6911260729"
	ItemPodcastTinyThings        = "518b866d-8f01-442e-ade9-b2c7219c835c"
	ItemPodcastOrbital           = "c6395ca8-4dc2-4d43-8dbd-2c092eb748c3"
	SeriesDiscworld              = "2a5b759b-d73e-4b6f-b5e2-b6a2a2abc21a"
	SeriesExpanse                = "06eb6b8e-b4a9-4ebc-941e-37042ef5dffe"
	SeriesEarthsea               = "6d6c0ced-e190-44a1-821d-4a4f51c5c5ab"
	AuthorPratchett              = "8b80fdec-e4cf-4d03-b510-ffc6839b21e9"
	AuthorGaiman                 = "d5e9e14d-6511-482e-a411-8b81c1b179ce"
	AuthorCorey                  = "74a2fccc-214a-4738-8e2c-ac40c7f728bc"
	AuthorLeGuin                 = "dd2ee84d-88f4-4af7-969b-83ecc18aba4a"
	AuthorWeir                   = "8caf5bf2-faf1-4a9c-a1c3-51f09cacf982"
	AuthorKafka                  = "6e51eed0-3e3f-413e-a923-387271c76386"
	AuthorOnymous                = "8ddf397f-442a-412c-b940-b22e2dfe99f1"
	EpisodeTinyThings1           = "ba1c69bf-9876-4035-9342-17aa2b8d86b2"
	EpisodeTinyThings2           = "795231a7-4cb1-4533-a7a1-345a089df286"
	EpisodeTinyThings3           = "3c8f1b85-0e8d-40a3-9dc3-221c55f04c77"
	EpisodeTinyThings4           = "cdf9986b-d20d-4778-ba48-5f622eae5200"
	EpisodeTinyThings5           = "dc093588-d721-43e4-9543-cb74cf8a4f52"
	EpisodeOrbital1              = "062619d1-8793-4161-9381-e2f59beb216c"
	EpisodeOrbital2              = "52b9894f-bbf9-4b69-b610-8bd6361b7778"
	EpisodeOrbital3              = "c60bf3e6-0c34-4103-ba92-901bd0d818df"
	EpisodeOrbital4              = "60762671-b638-4b2f-a164-caa3c85422a7"
	CollectionDiscworldInOrder   = "c86be5ff-0774-4b0b-9641-9c4362d50112"
	CollectionSpaceOpera         = "f9ea566e-ea80-494b-8c2e-41e7903a2edd"
	PlaylistCommute              = "ee7d2eab-52a8-4724-92db-bd7266926ced"
	PlaylistCatchUp              = "1b8217b8-af32-4828-989c-8d9945edf023"
	PlaylistListenerQueue        = "47e21fad-131d-4a54-8ed0-2b0fe47f9d8c"
	PlaylistBedtime              = "2df451ac-3dae-4138-8349-83e3d1ba2db7"
	ProgressLeviathanWakes       = "5c3b5929-b391-450d-9617-feabb9787f72"
	ProgressColourOfMagic        = "581f737c-a18e-47c1-a03f-de15050627c1"
	ProgressGoodOmens            = "0e188117-6273-44da-a2c4-5e70862724ea"
	ProgressTinyThings1          = "08e0c944-0723-4d5a-a70e-60f6beafc119"
	ProgressTinyThings3          = "4418f0c6-02ec-4633-bc8b-cc49a13cedc7"
	ProgressPartnerColourOfMagic = "926d13af-6c17-4e49-8313-8e48576e89f4"
	ProgressPartnerMort          = "01c43927-4851-442a-b363-91a3cdc8721a"
)

// Sample API keys. The sample is a household of three: root (every
// permission; DefaultAPIKey), "partner" (may update, may not delete; own
// progress, bookmarks, playlist and listening sessions) and "listener" (a
// plain user: may neither update nor delete).
const (
	// ListenerAPIKey authenticates the sample's second user, "listener"
	// (type user, default permissions: no update, no delete), who owns
	// PlaylistListenerQueue.
	ListenerAPIKey = "standin-listener-api-key"
	// PartnerAPIKey authenticates "partner" (type user with the update
	// permission and without delete), who owns PlaylistBedtime, progress on
	// The Colour of Magic and Mort, two bookmarks and four listening sessions.
	PartnerAPIKey = "standin-partner-api-key"
)
