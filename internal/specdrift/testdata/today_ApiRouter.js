// A router in the syntax of server/routers/ApiRouter.js, written by hand for
// the tests: the routes of a few operations as the spec has them today.
class ApiRouter {
  init() {
    this.router.get(/^\/libraries/, this.apiCacheManager.middleware)
    this.router.get('/libraries', LibraryController.findAll.bind(this))
    this.router.get('/libraries/:id', LibraryController.middleware.bind(this), LibraryController.findOne.bind(this))
    this.router.get('/me/progress/:id/:episodeId?', MeController.getMediaProgress.bind(this))
    this.router.patch('/me/progress/:libraryItemId/:episodeId?', MeController.createUpdateMediaProgress.bind(this))
    this.router.delete('/me/progress/:id', MeController.removeMediaProgress.bind(this))
    this.router.get('/series/:id', SeriesController.middleware.bind(this), SeriesController.findOne.bind(this))
    this.router.post('/backups', BackupController.create.bind(this))
    // this.router.get('/old/:id', OldController.findOne.bind(this))
  }
}
