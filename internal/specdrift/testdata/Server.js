// The routes of server/Server.js that the spec has, in its syntax.
    router.get('/status', (req, res) => {
      res.json({ app: 'audiobookshelf', serverVersion: version })
    })
    router.get('/healthcheck', (req, res) => res.sendStatus(200))
