; furudesk's Windows installer, built by scripts/package-windows.sh with
; Debian's makensis. Per user: no administrator rights, installed to
; %LOCALAPPDATA%\Programs\furudesk, a Start menu entry, an entry in
; Settings > Apps, and an uninstaller that removes all of it but keeps the
; library and settings in %LOCALAPPDATA%\furudesk. /S installs and
; uninstalls silently.
;
; Defines passed in: VERSION, VERSION4 (a.b.c.d), SRCDIR (furudesk.exe,
; furudesk.ico, FFmpeg's DLLs and ffmpeg-install.nsh / ffmpeg-uninstall.nsh,
; the File and Delete lines of those DLLs), OUTFILE.

; 64-bit, like furudesk.exe (and Wine without its 32-bit half runs it).
Target amd64-unicode
SetCompressor /SOLID lzma
!include "MUI2.nsh"

!define APPNAME "furudesk"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APPNAME}"

Name "${APPNAME}"
OutFile "${OUTFILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\${APPNAME}"
InstallDirRegKey HKCU "Software\${APPNAME}" "InstallDir"
VIProductVersion "${VERSION4}"
VIAddVersionKey "ProductName" "${APPNAME}"
VIAddVersionKey "FileDescription" "furudesk installer"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "furudesk authors"

!define MUI_ICON "${SRCDIR}\furudesk.ico"
!define MUI_UNICON "${SRCDIR}\furudesk.ico"
!define MUI_FINISHPAGE_RUN "$INSTDIR\furudesk.exe"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "furudesk"
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  File "${SRCDIR}\furudesk.exe"
  !include "${SRCDIR}\ffmpeg-install.nsh"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateShortcut "$SMPROGRAMS\${APPNAME}.lnk" "$INSTDIR\furudesk.exe"
  WriteRegStr HKCU "Software\${APPNAME}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "${APPNAME}"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "furudesk"
  WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\furudesk.exe"
  WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  Delete "$SMPROGRAMS\${APPNAME}.lnk"
  Delete "$INSTDIR\furudesk.exe"
  !include "${SRCDIR}\ffmpeg-uninstall.nsh"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINSTKEY}"
  DeleteRegKey HKCU "Software\${APPNAME}"
SectionEnd
