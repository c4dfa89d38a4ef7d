import { describingFile, listedEntries, notesContent, summarise } from './project-facts';

describe('describingFile', () => {
  it.each([
    ['a root README over everything', 'docs/\nsrc/\npackage.json\nCHANGELOG.md\nREADME.md', 'README.md'],
    ['README in any case and extension', 'readme.rst\nindex.js', 'readme.rst'],
    ['the shallowest README when listed deeper', 'docs/README.md\npkg/\npkg/a/README.md', 'docs/README.md'],
    ['markdown when there is no README', 'src/\nGUIDE.md\nmain.go', 'GUIDE.md'],
    ['a manifest when there is no markdown', 'src/\nCargo.toml\nbuild.rs', 'Cargo.toml'],
    ['the first file otherwise', 'src/\nlink@\nmain.c\nutil.c', 'main.c'],
    ['never its own notes', 'STAGECRAFT_NOTES.md\nmain.py', 'main.py'],
  ])('picks %s', (_name, listing, expected) => {
    expect(describingFile(listing)).toBe(expected);
  });

  it('finds nothing in an empty or directory-only listing', () => {
    expect(describingFile('[. is empty]')).toBeNull();
    expect(describingFile('src/\ndocs/')).toBeNull();
  });
});

describe('summarise and notesContent', () => {
  it('takes the first heading as the title and counts lines', () => {
    expect(summarise('README.md', '# Tiny <Calc>\n\nAdds numbers.\n')).toEqual({
      path: 'README.md',
      lines: 3,
      title: 'Tiny Calc',
      opening: ['Adds numbers.'],
    });
  });

  it('leaves truncation notes out of the listing and says when nothing was read', () => {
    const entries = listedEntries('a.txt\nb/\n[truncated after 2 entries; retry list_dir with a smaller depth]');
    expect(entries).toEqual(['a.txt', 'b/']);
    expect(notesContent('', entries, null)).toContain('2 entries: a.txt, b/.\n\nNo README or other describing file was found');
  });
});
