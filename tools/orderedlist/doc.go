// Package orderedlist holds what the collections and playlists toolsets
// share: a list somebody curated in Audiobookshelf, in an order (a
// collection of books, a playlist of books and episodes), read, shown and
// changed the same way. A Kind says which list and how Audiobookshelf
// treats it; the update question, its put-back, the delete question, the
// reads and writes of one list and its detail's head are written here
// once. What only one kind has (a playlist's episodes, a collection's
// books as items) stays in its toolset.
package orderedlist
