package standin

// User permission checks, from server/models/User.js and
// server/utils/queries/libraryItemsBookFilters.js getUserPermissionBookWhereQuery.

func (u *User) isAdminOrUp() bool { return u.Type == "root" || u.Type == "admin" }

// canDelete, canUpdate and canAccessExplicitContent are the User getters:
// the permission and an active account.
func (u *User) canDelete() bool { return u.Permissions.Delete && u.IsActive }
func (u *User) canUpdate() bool { return u.Permissions.Update && u.IsActive }
func (u *User) canAccessExplicitContent() bool {
	return u.Permissions.AccessExplicitContent && u.IsActive
}

// canAccessLibrary is User.checkCanAccessLibrary.
func (u *User) canAccessLibrary(id string) bool {
	if u.Permissions.AccessAllLibraries {
		return true
	}
	return contains(u.Permissions.LibrariesAccessible, id)
}

// canAccessItemWithTags is User.checkCanAccessLibraryItemWithTags.
func (u *User) canAccessItemWithTags(tags []string) bool {
	p := u.Permissions
	if p.AccessAllTags {
		return true
	}
	if p.SelectedTagsNotAccessible {
		for _, t := range tags {
			if contains(p.ItemTagsSelected, t) {
				return false
			}
		}
		return true
	}
	for _, t := range p.ItemTagsSelected {
		if contains(tags, t) {
			return true
		}
	}
	return false
}

func mediaTags(li *LibraryItem) []string {
	if li.Book != nil {
		return li.Book.Tags
	}
	if li.Podcast != nil {
		return li.Podcast.Tags
	}
	return nil
}

func mediaExplicit(li *LibraryItem) bool {
	if li.Book != nil {
		return li.Book.Explicit
	}
	if li.Podcast != nil {
		return li.Podcast.Explicit
	}
	return false
}

// canAccessItem is User.checkCanAccessLibraryItem.
func (u *User) canAccessItem(li *LibraryItem) bool {
	if !u.canAccessLibrary(li.LibraryID) {
		return false
	}
	if mediaExplicit(li) && !u.canAccessExplicitContent() {
		return false
	}
	return u.canAccessItemWithTags(mediaTags(li))
}

// mediaPermitted is the SQL restriction of getUserPermissionBookWhereQuery
// (and getUserPermissionPodcastWhereQuery): explicit content, and the tag
// lists only when some tags are selected.
func (u *User) mediaPermitted(explicit bool, tags []string) bool {
	if !u.canAccessExplicitContent() && explicit {
		return false
	}
	p := u.Permissions
	if !p.AccessAllTags && len(p.ItemTagsSelected) > 0 {
		n := 0
		for _, t := range tags {
			if contains(p.ItemTagsSelected, t) {
				n++
			}
		}
		if p.SelectedTagsNotAccessible {
			return n == 0
		}
		return n >= 1
	}
	return true
}

// hasPermissionWhere tells whether getUserPermissionBookWhereQuery produces
// any condition (upstream then skips its count cache, and some queries add
// "at least one accessible book").
func (u *User) hasPermissionWhere() bool {
	p := u.Permissions
	return !u.canAccessExplicitContent() || (!p.AccessAllTags && len(p.ItemTagsSelected) > 0)
}

func (u *User) itemPermitted(li *LibraryItem) bool {
	return u.mediaPermitted(mediaExplicit(li), mediaTags(li))
}
