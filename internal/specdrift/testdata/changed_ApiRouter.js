// The same router after a release that moves things: /series/:id is gone,
// progress is updated with PUT instead of PATCH, a new route appears
// (registered over several lines), and /backups is gone (no tool uses it).
class ApiRouter {
  init() {
    this.router.get(/^\/libraries/, this.apiCacheManager.middleware)
    this.router.get('/libraries', LibraryController.findAll.bind(this))
    this.router.get('/libraries/:libraryId', LibraryController.middleware.bind(this), LibraryController.findOne.bind(this))
    this.router.get(
      "/libraries/:id/narrators",
      LibraryController.middleware.bind(this),
      LibraryController.getNarrators.bind(this)
    )
    this.router.get('/me/progress/:id/:episodeId?', MeController.getMediaProgress.bind(this))
    this.router.put('/me/progress/:libraryItemId/:episodeId?', MeController.createUpdateMediaProgress.bind(this))
    this.router.delete('/me/progress/:id', MeController.removeMediaProgress.bind(this))
  }
}
